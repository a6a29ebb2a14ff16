/**
 * The answers of the metric queries (/api/metrics/series, /api/metrics/describe) from the
 * reader's identities and groups: the metric chosen by name, the agg and step checked against
 * its type and window, the source chosen by the step, and the groups ordered and capped.
 */
import { formatDuration } from "../../shared/duration.js";
import { totalOf } from "../../shared/metric-routes.js";
import { QueryError } from "../../shared/query-error.js";
import { effectiveLimit } from "../../shared/query-params.js";
import type {
  DescribeMetricRequest,
  MetricAgg,
  MetricGroupBy,
  MetricSeriesGroup,
  MetricSeriesRequest,
  QueryAnswerOf,
} from "../../shared/query-types.js";
import { nsToIso } from "../../shared/time.js";
import { aggAddsUp, aggFamily, allowedAggs, defaultAgg, valueUnit } from "./metrics/metric-aggs.js";
import { bucketStarts, defaultStepS, intervalMatters, sourceForStep } from "./metrics/metric-steps.js";
import {
  identityKind,
  type MetricGroupValues,
  type MetricIdentity,
  type MetricScope,
  type TelemetryReader,
} from "./telemetry-reader.js";
import { capOptionalText, capText } from "./value-cap.js";

/** The most buckets an explicit step may make (a minute over a day). */
export const MAX_BUCKETS = 1440;
/** The longest window read from raw points (a step that is not a multiple of a minute). */
export const MAX_RAW_WINDOW_MS = 3_600_000;
/** Attribute keys, and values per key, in a describe answer. */
export const DESCRIBE_MAX_KEYS = 50;
export const DESCRIBE_MAX_VALUES = 20;

export interface MetricAnswerContext {
  reader: TelemetryReader;
  nowNs: bigint;
  /** The route's default lookback, ms. */
  lookbackMs: number;
}

/**
 * The metric a name means: the identity written to most recently (a name may have had several
 * types, or have one per service: a cumulative counter in one, a delta one in another), within
 * the service asked for when there is one; of the type asked for when there is one.
 */
function metricNamed(
  reader: TelemetryReader,
  req: { name: string; service?: string | undefined; type?: MetricIdentity["type"] | undefined },
): { metric: MetricIdentity; identities: MetricIdentity[] } {
  const identities = reader.metricIdentities(req.name, req.service);
  if (identities.length === 0) throw new QueryError(`no metric "${req.name}" in the store`, "not_found");
  if (req.type === undefined) return { metric: identities[0] as MetricIdentity, identities };
  const metric = identities.find((identity) => identity.type === req.type);
  if (metric) return { metric, identities };
  const types = [...new Set(identities.map((identity) => identity.type))].join(", ");
  throw new QueryError(`no ${req.type} metric "${req.name}" in the store (its types: ${types})`, "not_found");
}

/**
 * The other identities of the name read with `metric` as one: the same type, unit,
 * monotonicity and aggregation family, another temporality (a delta counter in one service, a cumulative one in
 * another: both count increases, which the rollups keep per series whatever the temporality).
 * Read apart, grouping by service showed one of the services and left the other out.
 */
function sameMetric(metric: MetricIdentity, identities: readonly MetricIdentity[]): number[] {
  return identities
    .filter(
      (other) =>
        other.id !== metric.id &&
        other.type === metric.type &&
        other.unit === metric.unit &&
        other.monotonic === metric.monotonic &&
        aggFamily(other) === aggFamily(metric),
    )
    .map((other) => other.id);
}

function scopeOf(
  metric: MetricIdentity,
  req: { service?: string | undefined; lookback?: number | undefined; attrs?: [string, string][] | undefined },
  ctx: MetricAnswerContext,
): { scope: MetricScope; lookbackMs: number } {
  const lookbackMs = req.lookback ?? ctx.lookbackMs;
  const scope: MetricScope = {
    metric,
    fromNs: ctx.nowNs - BigInt(lookbackMs) * 1_000_000n,
    toNs: ctx.nowNs,
    attrs: req.attrs ?? [],
    ...(req.service !== undefined ? { service: req.service } : {}),
  };
  return { scope, lookbackMs };
}

function checkedAgg(metric: MetricIdentity, agg: MetricAgg | undefined): MetricAgg {
  if (agg === undefined) return defaultAgg(metric);
  const allowed = allowedAggs(metric);
  if (!allowed.includes(agg)) {
    const article = /^[aeiou]/.test(metric.type) ? "an" : "a";
    const what = metric.type === "sum" && !metric.monotonic ? "a non-monotonic sum" : `${article} ${metric.type}`;
    throw new QueryError(`agg ${agg} does not apply to ${metric.name} (${what}): use one of ${allowed.join(", ")}`);
  }
  return agg;
}

function checkedStep(stepMs: number | undefined, windowMs: number, intervalS: () => number | null): number {
  const windowS = windowMs / 1000;
  // The default step is at least a second: named for a window shorter, it would be a step not asked for.
  if (stepMs === undefined && windowMs < 1000) {
    throw new QueryError(`invalid lookback ${formatDuration(windowMs)}: at least 1s (a bucket is at least 1s)`);
  }
  const step = stepMs ?? defaultStepS(windowS, intervalMatters(windowS) ? intervalS() : null) * 1000;
  if (step < 1000) throw new QueryError(`invalid step ${formatDuration(step)}: at least 1s`);
  if (step > windowMs) {
    throw new QueryError(`invalid step ${formatDuration(step)}: at most the window (${formatDuration(windowMs)})`);
  }
  if (windowMs / step > MAX_BUCKETS) {
    throw new QueryError(
      `invalid step ${formatDuration(step)}: makes more than ${MAX_BUCKETS} buckets over ${formatDuration(windowMs)}`,
    );
  }
  // Past an hour, raw points are too many to read per query: the rollups answer instead.
  if (windowMs > MAX_RAW_WINDOW_MS && sourceForStep(step).kind === "points") {
    throw new QueryError(
      `invalid step ${formatDuration(step)}: over a window longer than 1h, use a multiple of 1m (read from the rollups)`,
    );
  }
  return step;
}

function groupName(g: MetricGroupBy): string {
  return g === "service" ? "service" : `attr.${g.attr}`;
}

/** The newest non-null value. */
export function latestOf(values: (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** `a` before `b`, largest first, nulls last; 0 when equal. */
function largestFirst(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return b - a;
}

/**
 * Groups by their latest value, largest first (groups without one last), then by the newest
 * value before their newest bucket (groups whose rate is 0 now: the busiest before first), then
 * by key. With `byTotal` (values that add up: addsUp), by their total over the window first: the
 * newest bucket, still filling, holds only what came so far, and would rank a group 3 s into it
 * below one that exported in it already.
 */
export function orderGroups(
  groups: MetricGroupValues[],
  newestOnly = false,
  byTotal = false,
): (MetricGroupValues & { latest: number | null })[] {
  const keyText = (g: MetricGroupValues) => JSON.stringify(g.key);
  return groups
    .map((g) => ({
      ...g,
      latest: newestOnly ? (g.values.at(-1) ?? null) : latestOf(g.values),
      before: latestOf(g.values.slice(0, -1)),
      total: byTotal ? totalOf(g.values) : null,
    }))
    .sort((a, b) => {
      const order =
        largestFirst(a.total, b.total) || largestFirst(a.latest, b.latest) || largestFirst(a.before, b.before);
      if (order !== 0) return order;
      return keyText(a) < keyText(b) ? -1 : keyText(a) > keyText(b) ? 1 : 0;
    })
    .map(({ before: _before, total: _total, ...group }) => group);
}

export function metricSeriesAnswer(
  req: MetricSeriesRequest,
  ctx: MetricAnswerContext,
  limits: { limit: number; cap: number },
): QueryAnswerOf<"metricSeries"> {
  const { metric, identities } = metricNamed(ctx.reader, req);
  const agg = checkedAgg(metric, req.agg);
  const { scope: own, lookbackMs } = scopeOf(metric, req, ctx);
  const alsoIds = sameMetric(metric, identities);
  const scope: MetricScope = alsoIds.length > 0 ? { ...own, alsoIds } : own;
  const stepMs = checkedStep(req.step, lookbackMs, () => ctx.reader.metricInterval(scope));
  const groupBy = req.groupBy ?? [];
  const groups = ctx.reader.metricBuckets({ ...scope, stepMs, source: sourceForStep(stepMs), groupBy, agg });
  const limit = effectiveLimit(req.limit, limits);
  // JSON has no number for an infinite value (an Infinity point, a sum past the largest
  // double): it is answered as null, and ordered as one, so the order and `latest` agree.
  for (const group of groups) group.values = group.values.map((v) => (v === null || Number.isFinite(v) ? v : null));
  // `last`'s newest bucket is the value now: none there is none now, not an older bucket's.
  const ordered = orderGroups(groups, agg === "last", aggAddsUp(metric, agg));
  const kept = ordered.slice(0, limit).map(
    (g): MetricSeriesGroup => ({
      group: Object.fromEntries(groupBy.map((by, i) => [groupName(by), capOptionalText(g.key[i] ?? null)])),
      values: g.values,
      latest: g.latest,
      series: g.series,
      resets: g.resets,
      exemplarTraceIds: g.exemplars.map((exemplar) => exemplar.traceId),
      exemplars: g.exemplars.map((exemplar) => ({ traceId: exemplar.traceId, time: nsToIso(exemplar.timeNs) })),
    }),
  );
  const starts = bucketStarts(scope.fromNs, scope.toNs, stepMs);
  return {
    data: {
      name: metric.name,
      type: metric.type,
      unit: capText(metric.unit),
      ...identityKind(metric),
      agg,
      valueUnit: capText(valueUnit(metric.unit, agg)),
      step: formatDuration(stepMs),
      stepMs,
      from: nsToIso(scope.fromNs),
      to: nsToIso(scope.toNs),
      buckets: starts.map(nsToIso),
      groups: kept,
    },
    meta: {
      limit,
      lookback: formatDuration(lookbackMs),
      returned: kept.length,
      truncated: ordered.length > limit,
      nextCursor: null,
    },
  };
}

export function describeMetricAnswer(
  req: DescribeMetricRequest,
  ctx: MetricAnswerContext,
): QueryAnswerOf<"describeMetric"> {
  const { metric, identities } = metricNamed(ctx.reader, req);
  const { scope: own, lookbackMs } = scopeOf(metric, req, ctx);
  // Read as the series route reads it: with the name's identities in another temporality.
  const alsoIds = sameMetric(metric, identities);
  const scope: MetricScope = alsoIds.length > 0 ? { ...own, alsoIds } : own;
  const detail = ctx.reader.describeMetric(scope, DESCRIBE_MAX_KEYS, DESCRIBE_MAX_VALUES);
  if (!detail) {
    const where = req.service !== undefined ? ` of service ${req.service}` : "";
    throw new QueryError(
      `metric "${req.name}" has no series${where} in the last ${formatDuration(lookbackMs)}`,
      "not_found",
    );
  }
  return { data: detail };
}
