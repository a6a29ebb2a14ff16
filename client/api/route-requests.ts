/**
 * A typed request as an HTTP request, through the route table (shared/query-routes.ts): the
 * route's path with its ids filled in, and the query string in the order the route lists its
 * parameters. Pure.
 */
import { QUERY_ROUTES } from "../../shared/query-routes.js";
import type { QueryMethod } from "../../shared/query-types.js";

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
 * rather than the client dropping them unseen.
 */
export function queryPairs(method: QueryMethod, request: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [key, value] of filters(request.attr)) pairs.push([`attr.${key}`, value]);
  for (const [key, value] of filters(request.attrContains)) pairs.push([`attrContains.${key}`, value]);
  for (const name of Object.keys(QUERY_ROUTES[method].params)) {
    const value = request[name];
    if (value !== undefined) pairs.push([name, String(value)]);
  }
  return pairs;
}

function filters(value: unknown): readonly (readonly [string, string])[] {
  return Array.isArray(value) ? (value as [string, string][]) : [];
}
