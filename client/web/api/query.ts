/**
 * The UI's client of the query API: the same typed requests as ObsClient (client/api), built
 * into URLs by the same route table (shared/route-requests.ts), sent with fetch to the collector
 * that served the page. So the UI asks exactly what `obs` and the MCP tools ask, and the answers
 * agree.
 */
import type { HealthRecord } from "../../../shared/api-records.js";
import type { ObsRequestOf } from "../../../shared/query-messages.js";
import type { QueryAnswerOf, QueryMethod } from "../../../shared/query-types.js";
import { queryPairs, routePath } from "../../../shared/route-requests.js";

/** A refused or failed request: the collector's own message, with the HTTP status (0: no answer). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The URL (path and query string) a request is sent to; also what a view shows as "the API call". */
export function apiHref<M extends QueryMethod>(method: M, request: ObsRequestOf<M>): string {
  const fields = request as Record<string, unknown>;
  const params = new URLSearchParams(queryPairs(method, fields));
  const search = params.toString();
  return `${routePath(method, fields)}${search ? `?${search}` : ""}`;
}

async function getJson<T>(href: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(href, { headers: { accept: "application/json" }, ...(signal ? { signal } : {}) });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(`the collector does not answer (${(error as Error).message})`, 0);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`the collector answered ${response.status} without JSON`, response.status);
  }
  if (!response.ok) {
    const message = (body as { error?: unknown } | null)?.error;
    throw new ApiError(typeof message === "string" ? message : `HTTP ${response.status}`, response.status);
  }
  return body as T;
}

/** Asks one query route; rejects with ApiError (or an AbortError when `signal` aborts). */
export function query<M extends QueryMethod>(
  method: M,
  request: ObsRequestOf<M>,
  signal?: AbortSignal,
): Promise<QueryAnswerOf<M>> {
  return getJson<QueryAnswerOf<M>>(apiHref(method, request), signal);
}

/** `/api/health`: the collector's version, counters and configuration. */
export function health(signal?: AbortSignal): Promise<HealthRecord> {
  return getJson<HealthRecord>("/api/health", signal);
}
