/**
 * The metric query routes (/api/metrics...), spread last into QUERY_ROUTES (query-routes.ts):
 * their order there is the OpenAPI document's.
 */
import type { QueryRoute } from "./query-routes.js";
import type { QueryMethod } from "./query-types.js";
import { cursor, DEFAULT_LOOKBACK, limit, lookback, one, pageOf, service, text } from "./route-builders.js";

/**
 * Aggregations of /api/metrics/series, by the metric types they apply to (`sum` a monotonic or
 * delta one: a cumulative up-down sum is read as a gauge, aggFamilyOf).
 */
export const METRIC_AGGS = {
  sum: ["rate", "increase", "sum"],
  gauge: ["last", "avg", "min", "max", "sum"],
  histogram: ["count", "sum", "avg", "p50", "p90", "p95", "p99"],
  exponential_histogram: ["count", "sum", "avg", "p50", "p90", "p95", "p99"],
  summary: ["count", "sum", "avg", "p50", "p90", "p95", "p99"],
} as const;

/** Each family's aggregation when none is asked for: counters per second, levels their last value, distributions p95. */
export const DEFAULT_AGGS = {
  sum: "rate",
  gauge: "last",
  histogram: "p95",
  exponential_histogram: "p95",
  summary: "p95",
} as const satisfies { [F in keyof typeof METRIC_AGGS]: (typeof METRIC_AGGS)[F][number] };

export type AggFamily = keyof typeof METRIC_AGGS;

/**
 * The family of aggregations a metric takes. A non-monotonic sum (an up-down counter) is a
 * level, read as a gauge, when cumulative; a delta one's points are changes of the level, which
 * add up as a counter's increases do (its `last` would be its latest change, not its level).
 */
export function aggFamilyOf(metric: {
  type: AggFamily;
  monotonic: boolean | null;
  temporality: "delta" | "cumulative" | null;
}): AggFamily {
  if (metric.type === "sum" && metric.monotonic !== true && metric.temporality !== "delta") return "gauge";
  return metric.type;
}

/**
 * Whether an answer's bucket values add up to a total over its buckets: a counter's increases,
 * a histogram's or summary's counts and sums, a delta up-down sum's summed changes. Not rates,
 * levels (a gauge's or a cumulative up-down sum's values) or quantiles. Their newest bucket,
 * still open, holds only what came so far.
 */
export function addsUp(answer: {
  agg: string;
  type: AggFamily;
  monotonic: boolean | null;
  temporality: "delta" | "cumulative" | null;
}): boolean {
  if (answer.agg === "increase" || answer.agg === "count") return true;
  return answer.agg === "sum" && aggFamilyOf(answer) !== "gauge";
}

/** The sum of a group's bucket values; null when no bucket has one. */
export function totalOf(values: readonly (number | null)[]): number | null {
  let total: number | null = null;
  for (const value of values) if (value !== null) total = (total ?? 0) + value;
  return total;
}

/** The identity of a name to answer with, when it has several types (a gauge in one service, a counter in another). */
const metricType = {
  kind: "enum",
  values: Object.keys(METRIC_AGGS) as (keyof typeof METRIC_AGGS)[],
  description:
    "The metric's type, where its name has identities of several types: the one of this type. Absent: the identity written to most recently (within service, when given).",
  flag: "type",
} as const;

export const METRIC_ROUTES = {
  listMetrics: {
    paths: [{ path: "/api/metrics", operationId: "listMetrics" }],
    summary: "Metrics with a point in the window, by name",
    pathParams: {},
    params: {
      service,
      name: { ...text("Substring of the metric's name."), flag: "name" },
      lookback: lookback(DEFAULT_LOOKBACK),
      limit: limit(100, 500),
      cursor,
    },
    answer: pageOf("MetricSummary"),
  },
  metricSeries: {
    paths: [{ path: "/api/metrics/series", operationId: "metricSeries" }],
    summary: "One metric's values over time, in step-sized buckets, per group",
    pathParams: {},
    params: {
      name: { ...text("The metric's name, exactly."), required: true },
      type: metricType,
      groupBy: {
        kind: "groupByList",
        values: ["service"],
        description:
          "service or attr.KEY; repeat (or separate with commas) to group by several; a comma inside an attribute key stays in it. Absent: one group.",
        flag: "group-by",
      },
      agg: {
        kind: "enum",
        values: ["rate", "increase", "sum", "last", "avg", "min", "max", "count", "p50", "p90", "p95", "p99"],
        description:
          "counters (monotonic sums, and delta up-down sums, whose points are changes): rate (per second, the default), increase, sum; gauges and cumulative up-down sums: last (the default), avg, min, max, sum; histograms and summaries: count, sum, avg, p50, p90, p95 (the default), p99",
        flag: "agg",
      },
      step: {
        kind: "duration",
        description:
          "Bucket width, e.g. 30s, 1m, 15m; at least 1s and at most the window. Default: from the window, and at least how often the series export.",
        cap: "24h",
        flag: "step",
      },
      service,
      lookback: lookback(DEFAULT_LOOKBACK),
      limit: limit(20, 100),
    },
    attr: true,
    notFound: "No metric of this name (of this type, when given) in the store",
    answer: one("MetricSeries", true),
  },
  describeMetric: {
    paths: [{ path: "/api/metrics/describe", operationId: "describeMetric" }],
    summary: "One metric: its identity and its series' attribute keys and values, with counts",
    pathParams: {},
    params: {
      name: { ...text("The metric's name, exactly."), required: true },
      type: metricType,
      service,
      lookback: lookback(DEFAULT_LOOKBACK),
    },
    notFound:
      "No metric of this name (of this type, when given) in the store, or none of its series (of the service, when given) in the window",
    answer: one("MetricDetail", false),
  },
} satisfies Partial<Record<QueryMethod, QueryRoute>>;
