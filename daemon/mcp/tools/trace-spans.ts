/**
 * A whole trace's spans from the query API: /api/traces/{id}/spans is paged (at most 10,000
 * spans a page), so the tools that reason about a trace's shape follow its cursors to the end.
 */
import type { SpanRecord } from "../../../shared/api-records.js";
import type { QueryApi } from "../../../shared/query-api.js";

/** Every span of the trace, in start order (the API's); rejects with not_found for an unknown trace. */
export async function fetchTraceSpans(api: QueryApi, traceId: string): Promise<SpanRecord[]> {
  const spans: SpanRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.getTraceSpans(cursor === undefined ? { traceId } : { traceId, cursor });
    spans.push(...page.data);
    cursor = page.meta.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return spans;
}

/** Milliseconds between two nanosecond instants (as the API's decimal text), rounded to 0.001 ms. */
export function msBetween(fromNs: string | bigint, toNs: string | bigint): number {
  return roundMs(Number(BigInt(toNs) - BigInt(fromNs)) / 1e6);
}

/** `ms` rounded to the microsecond, as outlines and paths show durations. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The earliest start of `spans`, in nanoseconds (0 for none). */
export function traceStartNs(spans: readonly Pick<SpanRecord, "startTimeUnixNano">[]): bigint {
  let start: bigint | undefined;
  for (const span of spans) {
    const ns = BigInt(span.startTimeUnixNano);
    if (start === undefined || ns < start) start = ns;
  }
  return start ?? 0n;
}

/** The latest end of `spans`, in nanoseconds (0 for none). */
export function traceEndNs(spans: readonly Pick<SpanRecord, "endTimeUnixNano">[]): bigint {
  let end = 0n;
  for (const span of spans) {
    const ns = BigInt(span.endTimeUnixNano);
    if (ns > end) end = ns;
  }
  return end;
}

/** Whether a span failed: error status, or an exception event recorded on it. */
export function isErrorSpan(span: Pick<SpanRecord, "status" | "events">): boolean {
  return span.status.code === "error" || span.events.some((event) => event.name === "exception");
}
