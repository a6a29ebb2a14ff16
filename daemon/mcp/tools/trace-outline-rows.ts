/**
 * The rows of a trace outline: one short array per span, in depth-first order, the service as
 * an index into a list of the trace's services, times as milliseconds from the trace's start
 * rounded to the microsecond. Arrays under named columns rather than objects keep a span to a
 * few bytes of JSON, within the per-span target (docs/PERFORMANCE.md has the figure). Pure.
 */
import type { SpanRecord } from "../../../shared/api-records.js";
import { spanForest } from "../../../shared/trace/span-order.js";
import { cutString } from "../budget.js";
import { msBetween } from "./durations.js";
import { isErrorSpan, traceStartNs } from "./trace-spans.js";

/** The outline's columns, in row order (the output schema says what each holds). */
export const OUTLINE_COLUMNS = ["id", "parent", "name", "svc", "start_ms", "dur_ms", "status", "err", "depth"] as const;

/** A span's name is cut past this many characters: the outline is for the shape, details show it whole. */
export const OUTLINE_NAME_CHARS = 80;

export type OutlineRow = [
  id: string,
  parent: string | null,
  name: string,
  svc: number,
  startMs: number,
  durMs: number,
  status: SpanRecord["status"]["code"],
  err: 0 | 1,
  depth: number,
];

export interface TraceOutline {
  /** The trace's services; a row's `svc` indexes this list. */
  services: string[];
  /** Every span within maxDepth, depth-first. */
  rows: OutlineRow[];
  /** Spans left out because they lie deeper than maxDepth. */
  deeper: number;
  startNs: bigint;
}

type OutlineSpan = Pick<
  SpanRecord,
  | "spanId"
  | "parentSpanId"
  | "operation"
  | "serviceName"
  | "startTimeUnixNano"
  | "endTimeUnixNano"
  | "status"
  | "events"
>;

/** The outline of a whole trace; spans deeper than `maxDepth` (0: the roots) are counted, not listed. */
export function outlineRows(spans: readonly OutlineSpan[], maxDepth: number = Number.POSITIVE_INFINITY): TraceOutline {
  const startNs = traceStartNs(spans);
  const services: string[] = [];
  const serviceIndex = new Map<string, number>();
  const rows: OutlineRow[] = [];
  let deeper = 0;
  for (const { index, depth } of spanForest(spans).order) {
    if (depth > maxDepth) {
      deeper += 1;
      continue;
    }
    const span = spans[index] as OutlineSpan;
    let svc = serviceIndex.get(span.serviceName);
    if (svc === undefined) {
      svc = services.length;
      services.push(span.serviceName);
      serviceIndex.set(span.serviceName, svc);
    }
    rows.push([
      span.spanId,
      span.parentSpanId,
      cutString(span.operation, OUTLINE_NAME_CHARS),
      svc,
      msBetween(startNs, span.startTimeUnixNano),
      msBetween(span.startTimeUnixNano, span.endTimeUnixNano),
      span.status.code,
      isErrorSpan(span) ? 1 : 0,
      depth,
    ]);
  }
  return { services, rows, deeper, startNs };
}
