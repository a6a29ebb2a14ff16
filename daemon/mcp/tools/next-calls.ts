/**
 * The `next` and `continuation` calls the tools suggest, built in one place so every tool names
 * a trace tool with the same arguments. Pure.
 */
import { MAX_MAX_BYTES, MAX_STRING_CHARS } from "../budget.js";
import type { NextCall } from "../mcp-tool.js";

export function traceOutlineCall(traceId: string, why: string): NextCall {
  return { tool: "get_trace_outline", arguments: { trace_id: traceId }, why };
}

export function spanDetailsCall(traceId: string, spanIds: string[], why: string): NextCall {
  return { tool: "get_span_details", arguments: { span_ids: spanIds, trace_id: traceId }, why };
}

export function traceErrorsCall(traceId: string, why: string): NextCall {
  return { tool: "get_trace_errors", arguments: { trace_id: traceId }, why };
}

export function criticalPathCall(traceId: string, why: string): NextCall {
  return { tool: "get_critical_path", arguments: { trace_id: traceId }, why };
}

/**
 * A trace may be older than the search tools' default window; 24h is their widest, as the API's
 * correlated-logs route looks back.
 */
const TRACE_LOOKBACK = "24h";

/** search_logs over one trace (one span of it when `spanId` is given). */
export function traceLogsCall(traceId: string, why: string, spanId?: string): NextCall {
  const span = spanId === undefined ? {} : { span_id: spanId };
  return { tool: "search_logs", arguments: { trace_id: traceId, ...span, lookback: TRACE_LOOKBACK }, why };
}

/** search_spans over one trace: the narrower read when a trace is too large to load whole. */
export function traceSpansSearchCall(traceId: string, why: string): NextCall {
  return { tool: "search_spans", arguments: { trace_id: traceId, lookback: TRACE_LOOKBACK }, why };
}

/**
 * The same call with the largest max_bytes, for an answer that is not paged and had items cut
 * to fit; undefined when the call already had the largest budget (nothing more would fit).
 */
export function largerBudgetCall(
  tool: string,
  args: Record<string, unknown>,
  maxBytes: number,
  why: string,
): NextCall | undefined {
  return maxBytes < MAX_MAX_BYTES ? { tool, arguments: { ...args, max_bytes: MAX_MAX_BYTES }, why } : undefined;
}

/**
 * The same tool asked again from where an answer stopped: `max_bytes` is carried over when the
 * caller set it, so the next part is cut to the same budget.
 */
export function continuationCall(
  tool: string,
  args: Record<string, unknown>,
  maxBytes: number | undefined,
  why: string,
): NextCall {
  return { tool, arguments: maxBytes === undefined ? args : { ...args, max_bytes: maxBytes }, why };
}

/** Whether `value` holds a string (a key too) longer than `maxChars`, at any depth. */
function holdsLongString(value: unknown, maxChars: number): boolean {
  if (typeof value === "string") return value.length > maxChars;
  if (Array.isArray(value)) return value.some((item) => holdsLongString(item, maxChars));
  if (value !== null && typeof value === "object")
    return Object.entries(value).some(([key, item]) => key.length > maxChars || holdsLongString(item, maxChars));
  return false;
}

/**
 * The calls worth suggesting: one whose argument is longer than an answer shows a string whole
 * (MAX_STRING_CHARS) is left out. The answer shows that value cut, and a cut value matches
 * nothing; the whole one would fill the answer with a call few would make.
 */
export function usableCalls(calls: readonly NextCall[]): NextCall[] {
  return calls.filter((call) => !holdsLongString(call.arguments, MAX_STRING_CHARS));
}
