/**
 * What the query tools share: turning snake_case tool arguments into the API's request fields,
 * compact attribute maps, and the `next` calls that name the trace tools. Pure.
 */
import type { Attributes, JsonValue } from "../../../shared/api-records.js";
import type { AttributeFilter } from "../../../shared/query-messages.js";
import { cutLongStrings, cutString } from "../budget.js";

/** `{"http.route": "/cart"}` as the API's `attr` (or `attrContains`) pairs; undefined when empty. */
export function attributePairs(attributes: Record<string, string> | undefined): AttributeFilter[] | undefined {
  const pairs = Object.entries(attributes ?? {});
  return pairs.length ? pairs : undefined;
}

/** A copy of `value` without its undefined fields, so requests and `next` arguments stay minimal. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/** Attributes shown in a compact row, and the longest value kept whole. */
export const ROW_ATTRIBUTES = 6;
export const ROW_VALUE_CHARS = 120;

/**
 * The first few attributes of a record, each long key and value cut (cutString's marker), and
 * how many were left out: a row hints at what is there; the details tools show everything.
 */
export function fewAttributes(attributes: Attributes): { attributes: Attributes; more_attributes: number } {
  const entries = Object.entries(attributes);
  const kept: Record<string, JsonValue> = Object.fromEntries(
    entries
      .slice(0, ROW_ATTRIBUTES)
      .map(([key, value]) => [cutString(key, ROW_VALUE_CHARS), cutLongStrings(value, ROW_VALUE_CHARS)]),
  );
  return { attributes: kept, more_attributes: Math.max(0, entries.length - ROW_ATTRIBUTES) };
}

export { msOfNs } from "./durations.js";
export { spanDetailsCall, traceErrorsCall, traceOutlineCall } from "./next-calls.js";

/** The summary of a page of `noun`: how many are shown, and whether more match or did not fit. */
export function pageSummary(page: {
  noun: string;
  kept: number;
  total: number;
  truncated: boolean;
  lookback: string | null;
  maxBytes: number;
}): string {
  const { noun, kept, total, lookback, maxBytes } = page;
  if (kept === 0 && total > 0) return `${total} ${noun} matched but none fits max_bytes ${maxBytes}; raise max_bytes.`;
  if (kept === 0) return `No ${noun} match in the last ${lookback}.`;
  const cut = kept < total ? `${total - kept} of this page cut to fit max_bytes; ` : "";
  return `${kept} ${noun} in the last ${lookback}${page.truncated ? ` (${cut}more in the continuation)` : ""}.`;
}

/** The JSON Schema of a compact attribute map, for output schemas. */
export const ATTRIBUTES_OUTPUT = {
  type: "object",
  description: `The first ${ROW_ATTRIBUTES} attributes, keys and values over ${ROW_VALUE_CHARS} characters cut with a …[+N chars] marker`,
} as const;

export const MORE_ATTRIBUTES_OUTPUT = {
  type: "integer",
  description: "How many more attributes the record has (a span's: get_span_details shows them all)",
} as const;
