/**
 * The typed-argument check of the query routes: what a front-end that calls the query service
 * directly (not through a query string) may pass. It holds typed values to the same rules as
 * the HTTP parsing (query-request.ts), driven by the same route table, and refuses them with
 * the same messages: each typed value is written back as the text a query string would carry
 * (milliseconds as a duration, minutes, ids as given) and handed to that parameter's parser.
 * Ids come back lower-cased; every other value comes back as given. Values the HTTP parser
 * produced always pass.
 */
import { formatDuration } from "./duration.js";
import { QueryError } from "./query-error.js";
import {
  checkAttributeFilterCount,
  filterText,
  instantOutOfRange,
  MAX_INSTANT_NS,
  unknownParameter,
  withoutNul,
} from "./query-params.js";
import { PARSERS, pathId, requiredHint } from "./query-request.js";
import { type ParamSpec, QUERY_ROUTES, type QueryRoute } from "./query-routes.js";
import type { QueryMethod, QueryRequestOf } from "./query-types.js";

/** How a value that is not of the expected type is named in a refusal. */
function shown(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? String(value);
}

function wrongType(name: string, value: unknown, expected: string): QueryError {
  return new QueryError(`invalid ${name} "${shown(value)}": expected ${expected}`);
}

function stringOf(name: string, value: unknown): string {
  if (typeof value !== "string") throw wrongType(name, value, "text");
  return value;
}

function numberOf(name: string, value: unknown): number {
  if (typeof value !== "number") throw wrongType(name, value, "a number");
  return value;
}

/** One typed parameter value, checked (and, for ids, normalised) as its kind's parser would. */
function checkValue(
  spec: ParamSpec,
  name: string,
  value: unknown,
  parse: (raw: string, name: string) => unknown,
): unknown {
  switch (spec.kind) {
    case "text":
    case "enum":
    case "hexId":
      return parse(stringOf(name, value), name);
    case "enumList": {
      if (!Array.isArray(value) || value.length === 0) throw wrongType(name, value, "a list");
      // Each item on its own: the parser splits on commas, which an item may hold.
      for (const item of value) parse(stringOf(name, item), name);
      return value;
    }
    case "groupBy": {
      if (typeof value === "object" && value !== null && Object.keys(value).join() === "attr") {
        return parse(`attr.${stringOf(name, (value as { attr: unknown }).attr)}`, name);
      }
      return parse(stringOf(name, value), name);
    }
    case "groupByList": {
      if (!Array.isArray(value) || value.length === 0) throw wrongType(name, value, "a list");
      const one = (item: unknown) =>
        typeof item === "object" && item !== null && Object.keys(item).join() === "attr"
          ? `attr.${stringOf(name, (item as { attr: unknown }).attr)}`
          : stringOf(name, item);
      return parse(value.map(one).join(","), name);
    }
    case "duration":
      // As text: 172800000 is "2d" (over the cap), -5 is "-5ms" (not a duration).
      parse(formatDuration(numberOf(name, value)), name);
      return value;
    case "positiveInteger":
    case "milliseconds":
      parse(String(numberOf(name, value)), name);
      return value;
    case "minutes":
      parse(String(numberOf(name, value) / 60_000), name);
      return value;
    case "instant": {
      if (typeof value !== "bigint") throw wrongType(name, value, "Unix nanoseconds (a bigint)");
      if (value < 0n || value > MAX_INSTANT_NS) throw instantOutOfRange(String(value), name);
      return value;
    }
  }
}

/** `attr.KEY=VALUE` pairs as typed: `[key, value]` with a non-empty key. */
function checkPairs(name: string, value: unknown): [string, string][] {
  const pairs = Array.isArray(value) ? value : null;
  const ok = pairs?.every(
    (pair) =>
      Array.isArray(pair) &&
      pair.length === 2 &&
      typeof pair[0] === "string" &&
      pair[0] !== "" &&
      typeof pair[1] === "string",
  );
  if (!pairs || !ok) throw wrongType(name, value, "a list of [key, value] pairs");
  // Named as HTTP names them: attr.KEY, attrContains.KEY.
  const prefix = name === "attrs" ? "attr" : name;
  for (const [key, text] of pairs as [string, string][]) {
    withoutNul(key, `${prefix}.${key}`);
    filterText(text, `${prefix}.${key}`);
  }
  return pairs as [string, string][];
}

/**
 * A route's typed arguments, checked against the route table: path ids, each parameter by its
 * kind, the required ones, `attrs` / `attrContains` where the route takes them, and no other
 * field. Throws QueryError (invalid_argument) with the HTTP parser's message; returns the
 * arguments with ids lower-cased. An absent (undefined) field is a parameter not given.
 */
export function checkArgs<M extends QueryMethod>(method: M, args: QueryRequestOf<M>): QueryRequestOf<M> {
  const route: QueryRoute = QUERY_ROUTES[method];
  const parsers = PARSERS.get(route)!;
  if (typeof args !== "object" || args === null) throw wrongType("arguments", args, "an object");
  const given = args as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.pathParams)) {
    const value = given[name];
    checked[name] = pathId(typeof value === "string" ? value : value === undefined ? value : shown(value), spec);
  }
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || Object.hasOwn(route.pathParams, name)) continue;
    const spec = Object.hasOwn(route.params, name) ? route.params[name] : undefined;
    if (spec) checked[name] = checkValue(spec, name, value, parsers.params[name]!);
    else if (name === "attrs" && route.attr) checked[name] = checkPairs(name, value);
    else if (name === "attrContains" && route.attrContains) checked[name] = checkPairs(name, value);
    else throw unknownParameter(name, parsers);
  }
  const pairs = (name: string) => (checked[name] as unknown[] | undefined)?.length ?? 0;
  checkAttributeFilterCount(pairs("attrs") + pairs("attrContains"));
  for (const [name, spec] of Object.entries(route.params)) {
    if (spec.required && checked[name] === undefined) {
      throw new QueryError(`parameter ${name} is required: ${requiredHint(spec, checked)}`);
    }
  }
  return checked as QueryRequestOf<M>;
}
