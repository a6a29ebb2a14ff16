/**
 * Query-string parsing for the query routes: raw text to typed values, with the messages a
 * 400 answer carries. The route table (query-routes.ts) names a kind per parameter; the
 * parsers here turn each kind into a value, so one table drives the HTTP parsing.
 */
import { type DurationError, MAX_LOOKBACK_MS, parseDuration } from "./duration.js";
import { QueryError } from "./query-error.js";
import { nsToIso } from "./time.js";

export { MAX_LOOKBACK_MS, QueryError };

export type Parser = ((raw: string, name: string) => unknown) & {
  /** The parameter may be repeated; its values arrive joined with commas. */
  repeatable?: boolean;
};

/** The parameters a route accepts, and whether it takes `attr.KEY` / `attrContains.KEY`. */
export interface RouteParams {
  params: Record<string, Parser>;
  attr?: boolean;
  attrContains?: boolean;
}

export interface ParsedParams {
  values: Record<string, unknown>;
  /** `attr.KEY=VALUE`: exact matches, in the order given. */
  attrs: [string, string][];
  /** `attrContains.KEY=TEXT`: substring matches. */
  attrContains: [string, string][];
}

/**
 * Parses a query string (as express hands it over: a repeated parameter is an array) in the
 * order given, so the first bad parameter is the one named.
 */
export function parseParams(query: Record<string, unknown>, route: RouteParams): ParsedParams {
  const values: Record<string, unknown> = {};
  const attrs: [string, string][] = [];
  const attrContains: [string, string][] = [];
  for (const [name, given] of Object.entries(query)) {
    // Own keys only: a name every object inherits (`constructor`, `__proto__`) is no parameter.
    const parse = Object.hasOwn(route.params, name) ? route.params[name] : undefined;
    const raw = Array.isArray(given) && parse?.repeatable ? given.join(",") : given;
    if (Array.isArray(raw)) throw new QueryError(`parameter ${name} is given more than once; give it once`);
    const text = String(raw ?? "");
    if (route.attr && name.startsWith("attr.") && name.length > 5) {
      attrs.push([withoutNul(name.slice(5), name), filterText(text, name)]);
    } else if (route.attrContains && name.startsWith("attrContains.") && name.length > 13) {
      attrContains.push([withoutNul(name.slice(13), name), filterText(text, name)]);
    } else {
      if (!parse) throw unknownParameter(name, route);
      values[name] = parse(text, name);
    }
  }
  checkAttributeFilterCount(attrs.length + attrContains.length);
  return { values, attrs, attrContains };
}

/**
 * The most attribute filters (`attr.KEY` and `attrContains.KEY` together) one query takes.
 * Each is a condition of the query's SQL, and SQLite refuses an expression nested past 1,000
 * levels: from about 480 filters, a query failed as a store failure (500) instead of being
 * refused as the argument it is. A hundred is far more than any search needs.
 */
export const MAX_ATTRIBUTE_FILTERS = 100;

/** Refuses more than MAX_ATTRIBUTE_FILTERS attribute filters, after every parameter was read. */
export function checkAttributeFilterCount(count: number): void {
  if (count > MAX_ATTRIBUTE_FILTERS) {
    throw new QueryError(
      `${count} attribute filters given (attr.KEY and attrContains.KEY): a query takes at most ${MAX_ATTRIBUTE_FILTERS}`,
    );
  }
}

/** The refusal of a parameter the route does not take, listing the ones it does. */
export function unknownParameter(name: string, route: RouteParams): QueryError {
  const allowed = [
    ...Object.keys(route.params),
    ...(route.attr ? ["attr.KEY"] : []),
    ...(route.attrContains ? ["attrContains.KEY"] : []),
  ];
  return new QueryError(`unknown parameter ${name}; this route accepts ${allowed.join(", ") || "no parameters"}`);
}

/**
 * The longest text a filter takes, in UTF-16 units (at most three UTF-8 bytes each): SQLite
 * refuses a LIKE pattern past 50,000 bytes, and a longer text would fail as a store failure
 * instead of being refused as the argument it is.
 */
export const MAX_FILTER_TEXT = 8192;

/** Refuses a filter's text past MAX_FILTER_TEXT or holding U+0000, naming the parameter as HTTP names it. */
export function filterText(raw: string, name: string): string {
  if (raw.length > MAX_FILTER_TEXT) {
    throw new QueryError(
      `parameter ${name} is ${raw.length} characters long: a filter's text may hold at most ${MAX_FILTER_TEXT}`,
    );
  }
  return withoutNul(raw, name);
}

/**
 * Refuses a filter's text (or attribute key) holding U+0000: SQLite's LIKE reads its pattern
 * only up to the first NUL, so `contains=%00` matched every record and `severity=info%00zzz`
 * every info record. Exact filters refuse it too, so that one rule holds for every text filter.
 */
export function withoutNul(text: string, name: string): string {
  if (text.includes("\0"))
    throw new QueryError(`parameter ${name} holds U+0000 (NUL), which a filter's text may not hold`);
  return text;
}

export function text(raw: string, name: string): string {
  if (raw === "") throw new QueryError(`parameter ${name} is empty`);
  return filterText(raw, name);
}

export function oneOf<T extends string>(...allowed: T[]): Parser {
  return (raw, name) => {
    if (!allowed.includes(raw as T)) throw new QueryError(`invalid ${name} "${raw}": use one of ${allowed.join(", ")}`);
    return raw as T;
  };
}

/** A comma-separated list of some of `allowed`, e.g. include=spans,logs. */
export function listOf<T extends string>(...allowed: T[]): Parser {
  return (raw, name) => {
    const items = raw.split(",").map((item) => item.trim());
    for (const item of items) {
      if (!allowed.includes(item as T)) {
        throw new QueryError(`invalid ${name} "${item}": use a comma-separated list of ${allowed.join(", ")}`);
      }
    }
    return items as T[];
  };
}

/** One of `fixed`, or `attr.KEY` (returned as `{attr: KEY}`): how aggregates group. */
export function groupBy(...fixed: string[]): Parser {
  return (raw, name) => {
    if (fixed.includes(raw)) return raw;
    if (raw.startsWith("attr.") && raw.length > 5) return { attr: raw.slice(5) };
    throw new QueryError(`invalid ${name} "${raw}": use one of ${fixed.join(", ")} or attr.KEY`);
  };
}

/**
 * A groupBy text split into its items: at each comma that starts another item (`service` or
 * `attr.`), so an attribute key holding a comma (`attr.a,b`) stays one item.
 */
export function splitGroupBy(text: string): string[] {
  return text.split(/,(?=\s*(?:service\s*(?:,|$)|attr\.))/).map((item) => item.trim());
}

/** Several groupBy values, comma-separated (a repeated parameter arrives joined with commas). */
export function groupByList(...fixed: string[]): Parser {
  const one = groupBy(...fixed);
  const parse: Parser = (raw, name) => splitGroupBy(raw).map((item) => one(item, name));
  parse.repeatable = true;
  return parse;
}

export function hexId(bytes: number): Parser {
  const pattern = new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`);
  return (raw, name) => {
    if (!pattern.test(raw)) throw new QueryError(`invalid ${name} "${raw}": expected ${bytes * 2} hex characters`);
    return raw.toLowerCase();
  };
}

/** A lookback duration, at most 24 hours. Returns milliseconds. */
export function lookback(raw: string, name: string): number {
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch (error) {
    if ((error as DurationError).tooLong) ms = Number.POSITIVE_INFINITY;
    else throw new QueryError(`invalid ${name}: ${(error as DurationError).message}`);
  }
  if (ms > MAX_LOOKBACK_MS) {
    throw new QueryError(`${name} ${raw} is over the maximum of 24h`);
  }
  return ms;
}

export function positiveInteger(raw: string, name: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new QueryError(`invalid ${name} "${raw}": expected a positive integer`);
  }
  return n;
}

/**
 * The longest duration a store can hold, in milliseconds: durations are compared in
 * nanoseconds as SQLite integers (64-bit), so a larger threshold could not be compared at all.
 */
export const MAX_DURATION_MS = Number((2n ** 63n - 1n) / 1_000_000n);

/**
 * A number as JSON writes one, without a sign: `Number()` alone also takes `0x10`, `0b1`,
 * `Infinity` and surrounding blanks, which no document of the API describes.
 */
const DECIMAL = /^\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Milliseconds, 0 to MAX_DURATION_MS (fractions allowed). */
export function nonNegativeNumber(raw: string, name: string): number {
  const n = Number(raw);
  if (!DECIMAL.test(raw) || !Number.isFinite(n) || n < 0 || n > MAX_DURATION_MS) {
    throw new QueryError(`invalid ${name} "${raw}": expected a number of milliseconds from 0 to ${MAX_DURATION_MS}`);
  }
  return n;
}

/** The effective page size: the default when absent, capped at the route's maximum. */
export function effectiveLimit(requested: unknown, defaults: { limit: number; cap: number }): number {
  return Math.min(typeof requested === "number" ? requested : defaults.limit, defaults.cap);
}

/** A window length in minutes: more than 0, at most 24 hours (1440). Returns milliseconds. */
export function minutes(raw: string, name: string): number {
  const n = Number(raw);
  if (!DECIMAL.test(raw) || !Number.isFinite(n) || n <= 0 || n > MAX_LOOKBACK_MS / 60_000) {
    throw new QueryError(`invalid ${name} "${raw}": expected minutes, more than 0 and at most 1440 (24h)`);
  }
  return Math.round(n * 60_000);
}

/** The refusal of an instant outside what a store can hold. */
export function instantOutOfRange(shown: string, name: string): QueryError {
  const last = nsToIso(MAX_INSTANT_NS);
  return new QueryError(`invalid ${name} "${shown}": expected a time from 1970-01-01T00:00:00Z to ${last}`);
}

/**
 * The latest instant a store can hold: timestamps are Unix nanoseconds in 64-bit SQLite
 * integers, which end in April 2262.
 */
export const MAX_INSTANT_NS = 2n ** 63n - 1n;
/** Date and minutes, seconds, their fraction, zone: a fraction only after seconds. */
const ISO_INSTANT = /^(\d{4}-\d\d-\d\dT\d\d:\d\d)(?::(\d\d)(?:\.(\d+))?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * Whether the date and time name a real moment: Date.parse rolls an impossible one over
 * (February 30th is March 2nd, 24:00 the next day), which would answer for another time.
 */
function isCalendarTime(dateAndMinutes: string, seconds: string | undefined): boolean {
  const [year, month, day, hour, minute] = dateAndMinutes.split(/[-T:]/).map(Number) as number[];
  const date = new Date(Date.UTC(year as number, (month as number) - 1, day));
  return (
    date.getUTCMonth() === (month as number) - 1 &&
    date.getUTCDate() === day &&
    (hour as number) <= 23 &&
    (minute as number) <= 59 &&
    Number(seconds ?? "0") <= 59
  );
}

/**
 * An instant as ISO 8601 with a time zone (2026-11-22T10:00:00.123456789Z), 1970 to 2262.
 * Returns Unix nanoseconds, every digit of the fraction kept to the nanosecond (Date keeps
 * milliseconds, and a window ending at a span's own time must hold that span).
 */
export function instant(raw: string, name: string): bigint {
  const parts = ISO_INSTANT.exec(raw);
  const ms =
    parts && isCalendarTime(parts[1] as string, parts[2])
      ? Date.parse(`${parts[1]}:${parts[2] ?? "00"}${parts[4]}`)
      : Number.NaN;
  if (!parts || Number.isNaN(ms)) {
    throw new QueryError(`invalid ${name} "${raw}": expected an ISO 8601 time with a zone, e.g. 2026-11-22T10:00:00Z`);
  }
  const fraction = BigInt((parts[3] ?? "").slice(0, 9).padEnd(9, "0"));
  const ns = BigInt(ms) * 1_000_000n + fraction;
  if (ns < 0n || ns > MAX_INSTANT_NS) throw instantOutOfRange(raw, name);
  return ns;
}
