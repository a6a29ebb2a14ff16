/**
 * The query API inside obsd: each request is turned into the query string the HTTP API would
 * get (shared/route-requests.ts), parsed by the same route table (shared/query-request.ts) and
 * run on the query thread, so `/mcp` answers exactly what `/api` answers and refuses exactly
 * what it refuses, with the same messages.
 */
import type { HealthRecord } from "../../shared/api-records.js";
import type { QueryApi } from "../../shared/query-api.js";
import type { ObsRequestOf } from "../../shared/query-messages.js";
import { parseQueryRequest } from "../../shared/query-request.js";
import { QUERY_ROUTES } from "../../shared/query-routes.js";
import type { QueryAnswerOf, QueryMethod } from "../../shared/query-types.js";
import { queryPairs } from "../../shared/route-requests.js";
import { nowNs } from "../../shared/time.js";
import { type QueryCaller, QueryFailure } from "../query/query-client.js";

/** A store failure, with the code QueryApi promises (the HTTP API answers 500). */
class StoreFailure extends Error {
  override name = "StoreFailure";
  readonly code = "store_failure";
}

function call<M extends QueryMethod>(
  queries: QueryCaller,
  method: M,
  request: ObsRequestOf<M>,
): Promise<QueryAnswerOf<M>> {
  const values = request as unknown as Record<string, unknown>;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of queryPairs(method, values)) {
    const held = query[name];
    query[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  const path = Object.fromEntries(
    Object.keys(QUERY_ROUTES[method].pathParams).map((name) => [
      name,
      values[name] === undefined ? undefined : String(values[name]),
    ]),
  );
  let args: ReturnType<typeof parseQueryRequest<M>>;
  try {
    args = parseQueryRequest(method, path, query);
  } catch (error) {
    return Promise.reject(error);
  }
  return queries.call(method, args, nowNs()).then(
    (body) => JSON.parse(body) as QueryAnswerOf<M>,
    (error: unknown) => {
      throw error instanceof QueryFailure ? new StoreFailure(error.message) : error;
    },
  );
}

/** A QueryApi over `queries` (the query thread, or a test's in-process service). */
export function inProcessQueryApi(queries: QueryCaller, health: () => HealthRecord): QueryApi {
  const methods = Object.fromEntries(
    (Object.keys(QUERY_ROUTES) as QueryMethod[]).map((method) => [
      method,
      (request: ObsRequestOf<typeof method>) => call(queries, method, request),
    ]),
  );
  return { ...methods, health: async () => health() } as QueryApi;
}
