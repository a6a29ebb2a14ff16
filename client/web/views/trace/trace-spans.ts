/**
 * The waterfall's spans: the few fields it draws, from either shape the API pages a trace in
 * (the first 10,000 spans as `getTrace`'s tree nodes, the rest as `getTraceSpans`' SpanRecords),
 * with exact nanosecond instants kept as decimal text for the shared order and critical path,
 * and offsets from the trace's start in milliseconds for drawing. Pure.
 */
import type { SpanRecord, SpanTreeNode } from "../../../../shared/api-records.js";

export interface WaterfallSpan {
  spanId: string;
  parentSpanId: string | null;
  service: string;
  name: string;
  kind: SpanRecord["kind"];
  status: SpanRecord["status"]["code"];
  /** Unix nanoseconds, decimal text (what spanForest and criticalPath read). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** From the trace's start. */
  offsetMs: number;
  durationMs: number;
}

/** An instant split so that differences stay exact to the nanosecond without BigInt per span. */
interface SplitNanos {
  seconds: number;
  nanos: number;
}

function splitNanos(unixNano: string): SplitNanos {
  const digits = unixNano.padStart(10, "0");
  return { seconds: Number(digits.slice(0, -9)), nanos: Number(digits.slice(-9)) };
}

/**
 * An ISO 8601 UTC time as the API writes it (`2026-11-25T12:58:08.123456789Z`) as Unix
 * nanoseconds in decimal text; fewer fraction digits are padded. NaN-free: a time that does
 * not parse gives "0".
 */
export function isoToUnixNano(iso: string): string {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (!match) return "0";
  const ms = Date.parse(`${match[1]}${match[3]}`);
  if (!Number.isFinite(ms)) return "0";
  const seconds = Math.floor(ms / 1000);
  return `${seconds}${(match[2] ?? "").padEnd(9, "0")}`;
}

/** Milliseconds from `origin` to `unixNano` (both Unix nanoseconds, decimal text). */
export function offsetMsOf(unixNano: string, origin: string): number {
  const at = splitNanos(unixNano);
  const from = splitNanos(origin);
  return (at.seconds - from.seconds) * 1000 + (at.nanos - from.nanos) / 1e6;
}

/** Adds whole nanoseconds to an instant, in decimal text. */
function addNanos(unixNano: string, nanos: number): string {
  return (BigInt(unixNano) + BigInt(Math.max(0, Math.round(nanos)))).toString();
}

/** The first page's spans, from `getTrace`'s tree nodes (which carry no end: start + duration). */
export function spansFromTree(nodes: readonly SpanTreeNode[], origin: string): WaterfallSpan[] {
  return nodes.map((node) => {
    const start = isoToUnixNano(node.startTime);
    return {
      spanId: node.spanId,
      parentSpanId: node.parentSpanId,
      service: node.serviceName,
      name: node.operation,
      kind: node.kind,
      status: node.status,
      startTimeUnixNano: start,
      endTimeUnixNano: addNanos(start, node.durationMs * 1e6),
      offsetMs: offsetMsOf(start, origin),
      durationMs: node.durationMs,
    };
  });
}

/** The later pages' spans, from `getTraceSpans`' records. */
export function spansFromRecords(records: readonly SpanRecord[], origin: string): WaterfallSpan[] {
  return records.map((record) => ({
    spanId: record.spanId,
    parentSpanId: record.parentSpanId,
    service: record.serviceName,
    name: record.operation,
    kind: record.kind,
    status: record.status.code,
    startTimeUnixNano: record.startTimeUnixNano,
    endTimeUnixNano: record.endTimeUnixNano,
    offsetMs: offsetMsOf(record.startTimeUnixNano, origin),
    durationMs: record.durationNs / 1e6,
  }));
}

/** The time the waterfall's axis spans: from the trace's start to the last end seen, at least `summaryMs`. */
export function traceExtentMs(spans: readonly WaterfallSpan[], summaryMs: number): number {
  let end = summaryMs;
  for (const span of spans) end = Math.max(end, span.offsetMs + span.durationMs);
  return end > 0 ? end : 1;
}
