import type { ExpBuckets, MetricKind, MetricPointRecord } from "../otlp/records.js";
import { MAX_STORED_NS } from "../otlp/stored-time.js";

/** Histogram: its bounds and the count in each bucket (bounds.length + 1 of them). */
export interface HistogramDetail {
  bounds: number[];
  counts: number[];
}

/** Exponential histogram: its buckets at its own scale. */
export interface ExponentialDetail {
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: ExpBuckets;
  negative: ExpBuckets;
}

/** Summary: [quantile, value] pairs. */
export interface SummaryDetail {
  quantiles: [number, number][];
}

export type PointDetail = HistogramDetail | ExponentialDetail | SummaryDetail;

/**
 * The `metric_points.detail` of a point: its buckets or quantiles as JSON text, null for gauges
 * and sums (whose whole value is the `value` column). JSON rather than a binary encoding: with
 * the short decimal bounds histograms use, the text was no larger than float64 bounds with
 * varint counts, and readers parse it without a codec (docs/metrics-store.md).
 */
export function pointDetailOf(point: MetricPointRecord): PointDetail | null {
  switch (point.kind) {
    case "histogram":
      return { bounds: point.bounds ?? [], counts: point.bucketCounts ?? [] };
    case "exponential_histogram":
      return point.exponential;
    case "summary":
      return { quantiles: point.quantiles ?? [] };
    default:
      return null;
  }
}

/** Parses a stored `detail` back; null for gauges, sums and an absent detail. */
export function parsePointDetail(kind: MetricKind, text: string | Buffer | null): PointDetail | null {
  if (text === null || kind === "gauge" || kind === "sum") return null;
  return JSON.parse(typeof text === "string" ? text : text.toString("utf8")) as PointDetail;
}

/** Shared by every point without exemplars (most of them): never written to. */
const NO_TRACE_IDS: readonly string[] = Object.freeze([]);

/**
 * The trace ids of a point's exemplars (its `exemplars` JSON array), newest first by the
 * exemplar's own time (of two at the same time, the one sent later first): a query keeps a
 * group's newest ones, so the order must not depend on the order they were sent in.
 */
export function exemplarTraceIds(exemplars: string | null): readonly string[] {
  if (exemplars === null) return NO_TRACE_IDS;
  const parsed = JSON.parse(exemplars) as unknown;
  if (!Array.isArray(parsed)) return [];
  const traced: { traceId: string; timeNs: bigint; order: number }[] = [];
  for (const exemplar of parsed) {
    const { traceId, timeUnixNano } = (exemplar ?? {}) as { traceId?: unknown; timeUnixNano?: unknown };
    if (typeof traceId !== "string" || traceId === "") continue;
    // Past 2^63 - 1 as SQLite's CAST reads it (the raw points' exemplar query orders by that).
    const sent = typeof timeUnixNano === "string" && /^\d+$/.test(timeUnixNano) ? BigInt(timeUnixNano) : 0n;
    const timeNs = sent > MAX_STORED_NS ? MAX_STORED_NS : sent;
    traced.push({ traceId, timeNs, order: traced.length });
  }
  traced.sort((a, b) => (a.timeNs === b.timeNs ? b.order - a.order : a.timeNs > b.timeNs ? -1 : 1));
  return traced.map((exemplar) => exemplar.traceId);
}
