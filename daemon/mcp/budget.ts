/**
 * Byte budgets for tool answers. Every answer is bounded twice: item caps as in the spec, and
 * `max_bytes` on the serialized structured answer (default 16 KiB, at most 32 KiB, so a result
 * stays below the 25,000 tokens some clients refuse). What is left out is said
 * (`truncated`), with the call that fetches it. Long strings are cut with a marker that says
 * how much is missing. Pure, except pageWithinBudget, which asks the API again.
 */
import { sliceWhole } from "../../shared/lone-surrogate.js";
import type { AnswerTail, NextCall, ObjectSchema } from "./mcp-tool.js";

export const DEFAULT_MAX_BYTES = 16 * 1024;
/**
 * The largest budget a call may ask. JSON dense with random hex ids (a trace outline) runs
 * under two characters a token, so 48 KiB of it already passes the 25,000 tokens Claude Code
 * refuses; 32 KiB leaves room for a tokenizer that splits hex finer than the one the test
 * counts with (test/unit/mcp/answer-tokens.test.ts).
 */
export const MAX_MAX_BYTES = 32 * 1024;
export const MIN_MAX_BYTES = 1024;
/** The longest string value an answer carries whole; longer ones are cut (cutString). */
export const MAX_STRING_CHARS = 2000;
/** Cursors are a signed base64url text of about 200 characters (shared/cursor.ts). */
const CURSOR_STAND_IN_CHARS = 256;
const REFETCH_TRIES = 4;

/** The `max_bytes` input every tool takes. */
export const MAX_BYTES_PROPERTY = {
  type: "integer",
  minimum: MIN_MAX_BYTES,
  maximum: MAX_MAX_BYTES,
  default: DEFAULT_MAX_BYTES,
  description: `Upper bound on the size of the answer in bytes of JSON (default ${DEFAULT_MAX_BYTES}, at most ${MAX_MAX_BYTES}). Items that do not fit are left out, with truncated: true and a continuation call that fetches them.`,
} as const;

const NEXT_CALL_SCHEMA = {
  type: "object",
  properties: {
    tool: { type: "string" },
    arguments: { type: "object" },
    why: { type: "string" },
  },
  required: ["tool", "arguments", "why"],
} as const;

/** A tool's input schema: its own properties plus `max_bytes`; unknown arguments refused. */
export function toolInput(properties: Record<string, unknown>, required: string[] = []): ObjectSchema {
  return {
    type: "object",
    properties: { ...properties, max_bytes: MAX_BYTES_PROPERTY },
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** A tool's output schema: its own properties plus the AnswerTail fields every answer ends with. */
export function toolOutput(properties: Record<string, unknown>, required: string[] = []): ObjectSchema {
  return {
    type: "object",
    properties: {
      ...properties,
      truncated: { type: "boolean", description: "Whether anything was left out to stay within the caps or max_bytes" },
      continuation: { ...NEXT_CALL_SCHEMA, description: "When truncated: the call that fetches what was left out" },
      next: { type: "array", items: NEXT_CALL_SCHEMA, description: "The calls most worth making next" },
    },
    required: [...required, "truncated", "next"],
  };
}

/** The budget a call asked for, within [MIN_MAX_BYTES, MAX_MAX_BYTES]. */
export function budgetOf(maxBytes: unknown): number {
  const asked = typeof maxBytes === "number" && Number.isFinite(maxBytes) ? Math.floor(maxBytes) : DEFAULT_MAX_BYTES;
  return Math.min(MAX_MAX_BYTES, Math.max(MIN_MAX_BYTES, asked));
}

/** Bytes of `value` as the answer's JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** `text` whole when it is at most `maxChars` long, else its start and a marker: `…[+1234 chars]`. */
export function cutString(text: string, maxChars: number = MAX_STRING_CHARS): string {
  if (text.length <= maxChars) return text;
  const kept = sliceWhole(text, maxChars);
  return `${kept}…[+${text.length - kept.length} chars]`;
}

/** A copy of `value` with every string longer than `maxChars` cut (cutString), keys too, at any depth. */
export function cutLongStrings<T>(value: T, maxChars: number = MAX_STRING_CHARS): T {
  if (typeof value === "string") return cutString(value, maxChars) as T;
  if (Array.isArray(value)) return value.map((item) => cutLongStrings(item, maxChars)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        cutString(key, maxChars),
        cutLongStrings(item, maxChars),
      ]),
    ) as T;
  }
  return value;
}

/**
 * The longest prefix of `items` whose answer, built by `build`, serializes within `maxBytes`
 * (found by bisection: about log2(n) builds). `build` gets the kept items and whether any were
 * left out. When not even one item fits, the answer holds none (still marked truncated).
 */
export function fitItems<T, R>(
  items: readonly T[],
  maxBytes: number,
  build: (kept: readonly T[], truncated: boolean) => R,
): { answer: R; kept: number } {
  const fits = (count: number) => jsonBytes(build(items.slice(0, count), count < items.length)) <= maxBytes;
  if (fits(items.length)) return { answer: build(items, false), kept: items.length };
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return { answer: build(items.slice(0, low), true), kept: low };
}

/** A page of an API list: its items and the cursor of the page after it. */
export interface ApiPage<T> {
  data: T[];
  meta: { nextCursor: string | null };
}

/**
 * A page of `limit` items from a cursored API list, cut to what fits `maxBytes`. When items
 * had to be left out, the list is asked again with the kept count as its limit, so the
 * continuation carries a real cursor that starts exactly after the last item shown (the API's
 * cursors are opaque and sealed; only the collector can make one). `continueWith(cursor)` is
 * the call that fetches the rest.
 */
export async function pageWithinBudget<T, R extends AnswerTail>(options: {
  fetch: (limit: number, cursor?: string) => Promise<ApiPage<T>>;
  limit: number;
  cursor?: string;
  maxBytes: number;
  build: (items: readonly T[], tail: Pick<AnswerTail, "truncated" | "continuation">) => R;
  /** The call that fetches the rest from `cursor` (undefined: the list's first page). */
  continueWith: (cursor: string | undefined) => NextCall;
}): Promise<{ answer: R; kept: number; total: number }> {
  const page = await options.fetch(options.limit, options.cursor);
  const tailOf = (cursor: string | null) =>
    cursor === null ? { truncated: false } : { truncated: true, continuation: options.continueWith(cursor) };
  const cut = (cursor: string | undefined) => ({ truncated: true, continuation: options.continueWith(cursor) });
  // The continuation's cursor is unknown until the list is asked again: measure with a
  // stand-in at least as long as a cursor usually is, then check the real answer below.
  const stand = (page.meta.nextCursor ?? "").padEnd(CURSOR_STAND_IN_CHARS, "x");
  const fitted = fitItems(page.data, options.maxBytes, (kept, short) =>
    options.build(kept, short ? tailOf(stand) : tailOf(page.meta.nextCursor)),
  );
  if (fitted.kept === page.data.length) {
    return { answer: fitted.answer, kept: fitted.kept, total: page.data.length };
  }
  // Asked again for the kept count; should the real cursor be longer than the stand-in, one
  // item fewer (a few tries at most: cursors differ in length by a few characters).
  // When not even one item fitted the stand-in, one is still tried with the real cursor.
  const first = Math.max(fitted.kept, 1);
  for (let count = first; count > 0 && count > first - REFETCH_TRIES; count--) {
    const shorter = await options.fetch(count, options.cursor);
    const kept = shorter.data.slice(0, count);
    const answer = options.build(kept, tailOf(shorter.meta.nextCursor));
    if (jsonBytes(answer) <= options.maxBytes) return { answer, kept: kept.length, total: page.data.length };
  }
  // Not even one item fits: the continuation is the same page, for a call with more max_bytes.
  return { answer: options.build([], cut(options.cursor)), kept: 0, total: page.data.length };
}
