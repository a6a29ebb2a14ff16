/**
 * From an HTTP request to a typed query: which route a path names (matchQueryPath) and the
 * typed request its path and query string parse to (parseQueryRequest), both driven by the
 * route table. Throws QueryError (invalid_argument) with the message a 400 answer carries.
 */
import { QueryError } from "./query-error.js";
import {
  groupBy,
  groupByList,
  hexId,
  instant,
  listOf,
  lookback,
  minutes,
  nonNegativeNumber,
  oneOf,
  type Parser,
  parseParams,
  positiveInteger,
  type RouteParams,
  text,
} from "./query-params.js";
import { type ParamSpec, type PathParamSpec, QUERY_ROUTE_LIST, QUERY_ROUTES, type QueryRoute } from "./query-routes.js";
import type { QueryMethod, QueryRequestOf } from "./query-types.js";

/** The parser of a parameter of this kind. */
export function parserOf(spec: ParamSpec): Parser {
  const values = (spec.values ?? []) as string[];
  switch (spec.kind) {
    case "text":
      return text;
    case "enum":
      return oneOf(...values);
    case "enumList":
      return listOf(...values);
    case "groupBy":
      return groupBy(...values);
    case "groupByList":
      return groupByList(...values);
    case "hexId":
      return hexId(spec.bytes ?? 16);
    case "duration":
      return lookback;
    case "positiveInteger":
      return positiveInteger;
    case "milliseconds":
      return nonNegativeNumber;
    case "minutes":
      return minutes;
    case "instant":
      return instant;
  }
}

/** "a, b or c" */
function alternatives(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/**
 * What the "parameter NAME is required: ..." message lists: the values it takes, or what it is
 * (its description, starting lower case) when it is free text.
 */
export function requiredHint(spec: ParamSpec, values: Record<string, unknown>): string {
  if (spec.valuesBy) return (spec.valuesBy.values[String(values[spec.valuesBy.param])] ?? []).join(", ");
  const allowed = [
    ...(spec.values ?? []),
    ...(spec.kind === "groupBy" || spec.kind === "groupByList" ? ["attr.KEY"] : []),
  ];
  if (allowed.length > 0) return alternatives(allowed);
  const what = spec.description ?? "";
  return what.charAt(0).toLowerCase() + what.slice(1);
}

/** Each route's parsers, by parameter name. */
export const PARSERS = new Map<QueryRoute, RouteParams>(
  QUERY_ROUTE_LIST.map(([, route]) => [
    route,
    {
      params: Object.fromEntries(Object.entries(route.params).map(([name, spec]) => [name, parserOf(spec)])),
      ...(route.attr ? { attr: true } : {}),
      ...(route.attrContains ? { attrContains: true } : {}),
    },
  ]),
);

/** A path id (trace or span): `bytes` bytes as hex, lower-cased. */
export function pathId(raw: string | undefined, spec: PathParamSpec): string {
  if (!raw || !new RegExp(`^[0-9a-fA-F]{${spec.bytes * 2}}$`).test(raw)) {
    throw new QueryError(`invalid ${spec.what} "${raw}": expected ${spec.bytes * 2} hex characters`);
  }
  return raw.toLowerCase();
}

/**
 * A query route's typed request from its path values and query string (as express hands it
 * over: a repeated parameter is an array). Path ids first, then the query string in the order
 * given, then the required parameters in the table's order.
 */
export function parseQueryRequest<M extends QueryMethod>(
  method: M,
  path: Record<string, string | undefined>,
  query: Record<string, unknown>,
): QueryRequestOf<M> {
  const route: QueryRoute = QUERY_ROUTES[method];
  const args: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.pathParams)) {
    const raw = path[name];
    args[name] = pathId(raw, spec);
  }
  const parsed = parseParams(query, PARSERS.get(route)!);
  for (const [name, spec] of Object.entries(route.params)) {
    if (spec.required && parsed.values[name] === undefined) {
      throw new QueryError(`parameter ${name} is required: ${requiredHint(spec, parsed.values)}`);
    }
  }
  Object.assign(args, parsed.values);
  if (route.attr) args.attrs = parsed.attrs;
  if (route.attrContains) args.attrContains = parsed.attrContains;
  return args as QueryRequestOf<M>;
}

const MATCHERS = QUERY_ROUTE_LIST.flatMap(
  ([method, route]) =>
    route.paths.map(({ path }) => ({
      method,
      fixed: !path.includes("{"),
      regex: new RegExp(`^${path.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`),
    })),
  // A fixed path wins over a pattern that also matches it (/api/traces/stats, not a trace id).
).sort((a, b) => Number(b.fixed) - Number(a.fixed));

/** The route a request path names, with its path values; null when no query route has it. */
export function matchQueryPath(path: string): { method: QueryMethod; path: Record<string, string> } | null {
  for (const { method, regex } of MATCHERS) {
    const match = regex.exec(path);
    if (match) return { method, path: { ...match.groups } };
  }
  return null;
}
