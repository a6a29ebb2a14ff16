/** Which aggregations a metric takes, its default one, and the unit of the answer's values. Pure. */
import { type AggFamily, addsUp, aggFamilyOf, DEFAULT_AGGS, METRIC_AGGS } from "../../../shared/metric-routes.js";
import type { MetricAgg } from "../../../shared/query-types.js";
import type { MetricIdentity } from "../telemetry-reader.js";

type Kind = Pick<MetricIdentity, "type" | "monotonic" | "temporality">;

/** The identity as the shared rules read it (metric-routes.ts): its temporality named. */
function named(metric: Kind): Parameters<typeof aggFamilyOf>[0] {
  return {
    type: metric.type,
    monotonic: metric.monotonic,
    temporality: metric.temporality === 1 ? "delta" : "cumulative",
  };
}

/** How a metric's points combine (aggFamilyOf): counters increase, gauges and cumulative up-down sums are levels. */
export function aggFamily(metric: Kind): AggFamily {
  return aggFamilyOf(named(metric));
}

/** Whether the metric's values under `agg` add up over the buckets (addsUp): increases, counts, sums. */
export function aggAddsUp(metric: Kind, agg: MetricAgg): boolean {
  return addsUp({ ...named(metric), agg });
}

export function allowedAggs(metric: Kind): readonly MetricAgg[] {
  return METRIC_AGGS[aggFamily(metric)];
}

export function defaultAgg(metric: Kind): MetricAgg {
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
