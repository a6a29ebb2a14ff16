/**
 * A typed request as an HTTP request: the route's path with its ids filled in, and the query
 * string in the order the route lists its parameters. Pure.
 */

/** What the client needs to know of a query route. */
export interface ClientRoute {
  /** The path, with `:name` where a request field goes (`/api/traces/:traceId`). */
  path: string;
  /** The query parameters, in the order they are sent. */
  params: readonly string[];
  /** Whether the route takes `attr.KEY=VALUE` / `attrContains.KEY=TEXT`. */
  attr?: boolean;
  attrContains?: boolean;
}

const paging = ["lookback", "limit", "cursor"] as const;
const traceFilters = ["service", "status", "operation", "durationMin"] as const;
const logFilters = ["service", "severity", "traceId", "spanId", "body", "contains"] as const;

export const CLIENT_ROUTES = {
  listServices: { path: "/api/services", params: ["lookback"] },
  listTraces: { path: "/api/traces", params: [...traceFilters, ...paging], attr: true },
  getTrace: { path: "/api/traces/:traceId", params: ["include", "limit"] },
  getTraceSpans: { path: "/api/traces/:traceId/spans", params: ["limit", "cursor"] },
  traceLogs: { path: "/api/traces/:traceId/logs", params: paging },
  traceStats: { path: "/api/traces/stats", params: ["groupBy", "agg", ...traceFilters, "lookback"], attr: true },
  searchSpans: {
    path: "/api/spans/search",
    params: ["service", "traceId", "operation", "parentOperation", "status", ...paging],
    attr: true,
    attrContains: true,
  },
  getSpan: { path: "/api/spans/:spanId", params: [] },
  spanLogs: { path: "/api/spans/:spanId/logs", params: paging },
  searchLogs: { path: "/api/logs", params: [...logFilters, ...paging], attr: true, attrContains: true },
  logStats: {
    path: "/api/logs/stats",
    params: ["groupBy", "agg", ...logFilters, "lookback"],
    attr: true,
    attrContains: true,
  },
  facets: { path: "/api/facets", params: ["type", "field", "key", "service", "lookback", "limit"] },
  audit: { path: "/api/audit", params: ["service", "lookbackMinutes", "baselineMinutes", "durationMin", "until"] },
} satisfies Record<string, ClientRoute>;

/** The route's path with each `:name` replaced by the request's value, escaped. */
export function routePath(route: ClientRoute, request: Record<string, unknown>): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = request[name];
    if (value === undefined) throw new TypeError(`${route.path}: the request has no ${name}`);
    return encodeURIComponent(String(value));
  });
}

/**
 * The query parameters a request sets, as name/value pairs: the attribute filters first, in
 * the order given, then the route's parameters in its order (absent ones left out). Filters
 * are sent even to a route that takes none, so the collector refuses them by name rather than
 * the client dropping them unseen.
 */
export function queryPairs(route: ClientRoute, request: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [key, value] of filters(request.attr)) pairs.push([`attr.${key}`, value]);
  for (const [key, value] of filters(request.attrContains)) pairs.push([`attrContains.${key}`, value]);
  for (const name of route.params) {
    const value = request[name];
    if (value !== undefined) pairs.push([name, String(value)]);
  }
  return pairs;
}

function filters(value: unknown): readonly (readonly [string, string])[] {
  return Array.isArray(value) ? (value as [string, string][]) : [];
}
