/**
 * What a metric's type means to the view: its name in the list, the aggregations
 * /api/metrics/series takes for it (shared/metric-routes.ts's METRIC_AGGS, the route's own
 * table) and its default, and how an aggregation reads in a control and a summary. Pure.
 */
import { aggFamilyOf, DEFAULT_AGGS, METRIC_AGGS } from "../../../../shared/metric-routes.js";
import type { MetricAgg, MetricSummaryRecord } from "../../../../shared/query-types.js";

export type MetricKind = Pick<MetricSummaryRecord, "type" | "monotonic" | "temporality">;

export function allowedAggs(metric: MetricKind): readonly MetricAgg[] {
  return METRIC_AGGS[aggFamilyOf(metric)];
}

/** The collector's default: counters per second, levels their last value, distributions p95. */
export function defaultAgg(metric: MetricKind): MetricAgg {
  return DEFAULT_AGGS[aggFamilyOf(metric)];
}

/** The type as the list names it: a monotonic sum is a counter. */
export function typeLabel(metric: MetricKind): string {
  switch (metric.type) {
    case "sum":
      return metric.monotonic === true ? "counter" : "up-down sum";
    case "exponential_histogram":
      return "exponential histogram";
    default:
      return metric.type;
  }
}

const AGG_LABELS: Record<MetricAgg, string> = {
  rate: "rate (per second)",
  increase: "increase (delta per bucket)",
  sum: "sum",
  last: "last value",
  avg: "average",
  min: "min",
  max: "max",
  count: "count",
  p50: "p50",
  p90: "p90",
  p95: "p95",
  p99: "p99",
};

/** An aggregation as the control offers it. */
export function aggLabel(agg: MetricAgg): string {
  return AGG_LABELS[agg];
}

/** An aggregation as a sentence says it ("rate per second", "increase per 1m"). */
export function aggPhrase(agg: MetricAgg, step: string): string {
  if (agg === "rate") return "rate per second";
  if (agg === "increase") return `increase per ${step}`;
  if (agg === "last") return "last value";
  if (agg === "avg") return "average";
  return agg;
}

export function isMetricAgg(text: string): text is MetricAgg {
  return Object.hasOwn(AGG_LABELS, text);
}
