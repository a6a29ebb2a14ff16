/** Which aggregations a metric takes, its default one, and the unit of the answer's values. Pure. */
import { DEFAULT_AGGS, METRIC_AGGS } from "../../../shared/metric-routes.js";
import type { MetricAgg } from "../../../shared/query-types.js";
import type { MetricIdentity } from "../telemetry-reader.js";

/** How a metric's points combine: counters increase, gauges (and sums that may fall) are levels. */
export type AggFamily = keyof typeof METRIC_AGGS;

export function aggFamily(metric: Pick<MetricIdentity, "type" | "monotonic">): AggFamily {
  // An up-down counter's value is a level, read like a gauge's (its increase means little).
  if (metric.type === "sum" && !metric.monotonic) return "gauge";
  return metric.type;
}

export function allowedAggs(metric: Pick<MetricIdentity, "type" | "monotonic">): readonly MetricAgg[] {
  return METRIC_AGGS[aggFamily(metric)];
}

export function defaultAgg(metric: Pick<MetricIdentity, "type" | "monotonic">): MetricAgg {
  return DEFAULT_AGGS[aggFamily(metric)];
}

/** The quantile a pNN aggregation asks for, or null. */
export function quantileOf(agg: MetricAgg): number | null {
  const match = /^p(\d\d)$/.exec(agg);
  return match ? Number(match[1]) / 100 : null;
}

/** The unit of an answer's values: a rate is per second, a count counts observations. */
export function valueUnit(unit: string, agg: MetricAgg): string {
  if (agg === "rate") return unit === "" ? "1/s" : `${unit}/s`;
  if (agg === "count") return "{observation}";
  return unit;
}
