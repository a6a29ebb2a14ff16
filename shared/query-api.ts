/**
 * The query API as one interface: every query method of the route table, taking the request
 * as the query string carries it (shared/query-messages.ts) and answering what the HTTP API
 * answers. ObsClient implements it over HTTP (`obs`, `obs mcp`); obsd implements it in process
 * over the query thread (its `/mcp` route). A front-end written against QueryApi, such as the
 * MCP tools, gives the same answers wherever it runs.
 */
import type { HealthRecord } from "./api-records.js";
import type { ObsRequestOf } from "./query-messages.js";
import type { QueryAnswerOf, QueryMethod } from "./query-types.js";

/**
 * Each method resolves with the route's answer. It rejects with an Error whose `message` is
 * fit to show a user and whose `code` says what went wrong:
 * - `invalid_argument`: the request was refused (the HTTP API's 400), with the same message;
 * - `not_found`: the id names nothing stored (404);
 * - `collector_unavailable`: no collector answers (only over HTTP);
 * - `timeout`: the collector did not answer in time (only over HTTP);
 * - `store_failure` (or any other code): the store could not answer.
 */
export type QueryApi = { [M in QueryMethod]: (request: ObsRequestOf<M>) => Promise<QueryAnswerOf<M>> } & {
  /** The collector's `/api/health` document: identity, settings, counts, endpoints. */
  health(): Promise<HealthRecord>;
};

/** The `code` of an error a QueryApi method rejects with (see QueryApi), or undefined. */
export function queryApiErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
