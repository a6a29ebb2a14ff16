/**
 * A trace's spans from the query API, up to a cap: /api/traces/{id}/spans is paged (at most
 * 10,000 spans a page), so the tools that reason about a trace's shape follow its cursors, but
 * never past TRACE_SPAN_CAP spans in one call.
 */
import type { SpanRecord } from "../../../shared/api-records.js";
import type { QueryApi } from "../../../shared/query-api.js";
import { routeLimit } from "./query-inputs.js";

/**
 * The most spans one tool call reads. Two of the API's 10,000-span pages: a 10,000-span trace
 * (the large case) is read whole with room to spare, while a runaway trace of hundreds
 * of thousands of spans costs a bounded read rather than its whole size on every page of an
 * answer. Spans are read in full because the route has no lighter form that keeps nanosecond
 * times and exception events (the trace route's tree has neither).
 */
export const TRACE_SPAN_CAP = 20_000;

/** The most spans the spans route answers in one page (the route table's cap). */
const PAGE_CAP = routeLimit("getTraceSpans").cap;

export interface TraceSpans {
  /** The first spans of the trace in start order (the API's), at most the cap. */
  spans: SpanRecord[];
  /** The trace has more spans than were read. */
  overCap: boolean;
}

/** The trace's spans, the first `cap` in start order; rejects with not_found for an unknown trace. */
export async function fetchTraceSpans(api: QueryApi, traceId: string, cap = TRACE_SPAN_CAP): Promise<TraceSpans> {
  const spans: SpanRecord[] = [];
  let cursor: string | undefined;
  do {
    const limit = Math.min(PAGE_CAP, cap - spans.length);
    const page = await api.getTraceSpans(cursor === undefined ? { traceId, limit } : { traceId, limit, cursor });
    spans.push(...page.data);
    cursor = page.meta.nextCursor ?? undefined;
  } while (cursor !== undefined && spans.length < cap);
  return { spans, overCap: cursor !== undefined };
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
