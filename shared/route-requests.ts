/**
 * A typed request as an HTTP request, through the route table (shared/query-routes.ts): the
 * route's path with its ids filled in, and the query string in the order the route lists its
 * parameters. Pure.
 */
import { QUERY_ROUTES } from "./query-routes.js";
import type { QueryMethod } from "./query-types.js";

/** The route's own path with each `{name}` replaced by the request's value, escaped. */
export function routePath(method: QueryMethod, request: Record<string, unknown>): string {
  const [route] = QUERY_ROUTES[method].paths;
  return (route?.path ?? "").replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request[name];
    if (value === undefined) throw new TypeError(`${method}: the request has no ${name}`);
    return encodeURIComponent(String(value));
  });
}

/**
 * The query parameters a request sets, as name/value pairs: the attribute filters first, in
 * the order given, then the route's parameters in the table's order (absent ones left out).
 * Filters are sent even to a route that takes none, so the collector refuses them by name
 * rather than the client dropping them unseen. A filter given twice for one key is sent once,
 * with its last value (the collector takes one value per key). A list value (metricSeries'
 * `groupBy`) is the parameter repeated, one pair per item, so no item's text is split.
 */
export function queryPairs(method: QueryMethod, request: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [
    ...lastPerKey("attr.", filters(request.attr)),
    ...lastPerKey("attrContains.", filters(request.attrContains)),
  ];
  for (const name of Object.keys(QUERY_ROUTES[method].params)) {
    const value = request[name];
    if (Array.isArray(value)) for (const item of value) pairs.push([name, String(item)]);
    else if (value !== undefined) pairs.push([name, String(value)]);
  }
  return pairs;
}

/** One pair per key, at the key's first place, holding its last value. */
function lastPerKey(prefix: string, entries: readonly (readonly [string, string])[]): [string, string][] {
  const byKey = new Map<string, string>();
  for (const [key, value] of entries) byKey.set(`${prefix}${key}`, value);
  return [...byKey];
}

function filters(value: unknown): readonly (readonly [string, string])[] {
  return Array.isArray(value) ? (value as [string, string][]) : [];
}
