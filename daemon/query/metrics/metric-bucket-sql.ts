/**
 * The SQL of a bucketed metric query (TelemetryReader.metricBuckets), so SQLite's GROUP BY does
 * the work: `sel`, the scope's series with their group values (read first, computed once per
 * series, and numbered for obs_series_group); `cells`, one row per series and source row with
 * the rollup columns (read from metric_rollups, or computed from raw points with window
 * functions); and the aggregate per group number and bucket. Column meanings are the rollups'
 * (migrations/v008-metrics.ts).
 */

import { recordedSql } from "../../store/metric-rollup.js";
import { FOLDED_WIDTHS_S } from "../../store/metric-slots.js";
import type { MetricBucketQuery, MetricScope } from "../telemetry-reader.js";
import { aggFamily, quantileOf } from "./metric-aggs.js";

/** The width of the rows written every commit, which wider slots are merged from. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];
/**
 * The points the raw path reads: those the rollups fold (metric-rollup.ts `recorded`), so a
 * point without a value is skipped here too, and the next one's increase is taken across it.
 */
const RECORDED = recordedSql("q.");

export type Bind = Record<string, string | number | bigint | null>;

const NS_PER_MS = 1_000_000n;

/** Whether a scope reads several identities as one (MetricScope.alsoIds). */
export function merged(scope: MetricScope): boolean {
  return (scope.alsoIds?.length ?? 0) > 0;
}

/** `column` among the scope's identities: `= @metric`, or an IN of them when merged. */
export function metricIn(scope: MetricScope, column: string): string {
  if (!merged(scope)) return `${column} = @metric`;
  return `${column} IN (@metric${(scope.alsoIds ?? []).map((_, i) => `, @metric${i + 1}`).join("")})`;
}

/** The binds `metricIn` names. */
export function metricBinds(scope: MetricScope): Bind {
  const bind: Bind = { metric: scope.metric.id };
  (scope.alsoIds ?? []).forEach((id, i) => {
    bind[`metric${i + 1}`] = id;
  });
  return bind;
}

/** The scope's series (`sel`: id, g0..gN, prev_ns), with the binds it needs. */
export function seriesSql(
  scope: MetricScope,
  groupBy: MetricBucketQuery["groupBy"],
  firstNs: bigint,
  withPrevious: boolean,
): { sql: string; bind: Bind; groups: string[] } {
  const bind: Bind = { ...metricBinds(scope), first: firstNs, to: scope.toNs };
  const groups = groupBy.map((g, i) => {
    if (g === "service") return `v.name AS g${i}`;
    bind[`gk${i}`] = g.attr;
    return `coalesce(obs_attribute_text(ms.attributes, @gk${i}), obs_attribute_text(rs.attributes, @gk${i})) AS g${i}`;
  });
  const where = [metricIn(scope, "ms.metric_id"), "msl.last_ns >= @first", "ms.first_ns <= @to"];
  if (scope.service !== undefined) {
    where.push("v.name = @service");
    bind.service = scope.service;
  }
  // A filter matches the value the series groups by: the point's, the resource's only where
  // the point has none (matched on either, env=prod kept a series grouped as its point's test).
  scope.attrs.forEach(([key, value], i) => {
    bind[`ak${i}`] = key;
    bind[`av${i}`] = value;
    where.push(`(ms.id IN (SELECT a.series_id FROM metric_series_attributes a JOIN attr_keys k ON k.id = a.key_id
      WHERE ${metricIn(scope, "a.metric_id")} AND k.key = @ak${i} AND a.value = @av${i})
      OR (obs_attribute_text(ms.attributes, @ak${i}) IS NULL AND obs_attribute_text(rs.attributes, @ak${i}) = @av${i}))`);
  });
  // A gauge's points need no point before the window (they have no increase): not looked up,
  // which for a series whose points have no value would read back through all of them.
  const previous = !withPrevious
    ? ""
    : scope.metric.type === "gauge"
      ? ", ms.first_whole, @first AS prev_ns"
      : `, ms.first_whole, coalesce((SELECT max(q.time_ns) FROM metric_points q
        WHERE q.series_id = ms.id AND q.time_ns < @first AND ${RECORDED}), @first) AS prev_ns`;
  // Identities read as one differ in temporality: the points' increase rules take each series' own.
  const temporality =
    withPrevious && merged(scope) ? ", (SELECT temporality FROM metrics WHERE id = ms.metric_id) AS tp" : "";
  const sql = `sel AS MATERIALIZED (SELECT ms.id${groups.map((g) => `, ${g}`).join("")}${previous}${temporality}
    FROM metric_series ms JOIN metric_series_last msl ON msl.series_id = ms.id JOIN services v ON v.id = ms.service_id
      JOIN resources rs ON rs.id = ms.resource_id
    WHERE ${where.join(" AND ")})`;
  return { sql, bind, groups: groupBy.map((_, i) => `g${i}`) };
}

/**
 * Cells from the rollups of a width: the slots from the first bucket's start to the window's end.
 * A wider width's rows exist for its packed slots only (store/metric-slot-packer.ts merges them
 * when it packs the slot), so its slots after @rowsThrough come from the 60 s rows they are
 * merged from, each in the bucket of its own time. A series outside the scope has a null group
 * (one call per row; filtering on it would call the function twice), whose rows the reader
 * leaves out.
 */
const ROLLUP_COLUMNS_READ = `r.series_id, r.points, r.last_ns, r.value_sum, r.value_min, r.value_max,
      r.value_last, r.increase, r.sum_increase, r.resets, r.buckets`;
function rollupCells(scope: MetricScope): string {
  const metric = metricIn(scope, "r.metric_id");
  return `cells AS (SELECT obs_series_group(r.series_id) AS gid,
      (r.slot * @width - @firstS) / @stepS AS b, ${ROLLUP_COLUMNS_READ}
    FROM metric_rollups r WHERE ${metric} AND r.width_s = @width AND r.slot BETWEEN @slotLo AND @rowsThrough
    UNION ALL
    SELECT obs_series_group(r.series_id) AS gid, (r.slot * ${FOLDED_S} - @firstS) / @stepS AS b, ${ROLLUP_COLUMNS_READ}
    FROM metric_rollups r WHERE ${metric} AND r.width_s = ${FOLDED_S} AND r.slot BETWEEN @foldedLo AND @foldedHi)`;
}

/**
 * Cells from raw points, one per point, with the rollups' increase rules applied to each point
 * against the series' previous one (read back to the last point before the first bucket).
 */
function pointCells(query: MetricBucketQuery, needBuckets: boolean): string {
  const { type, temporality, monotonic } = query.metric;
  // Gauges have no increase; every other kind counts (an up-down counter's is its plain difference).
  const counter = type !== "gauge";
  const x = type === "sum" ? "value" : "count";
  const px = type === "sum" ? "pv" : "pc";
  const histogram = type === "histogram" || type === "exponential_histogram";
  const none = { reset: "0", increase: "NULL", sumIncrease: "NULL", buckets: type === "summary" ? "p.detail" : "NULL" };
  // A delta point counts whole.
  const delta = {
    ...none,
    increase: x,
    sumIncrease: "p.sum",
    buckets: histogram && needBuckets ? "obs_bucket_increase(p.detail, NULL, 'whole')" : none.buckets,
  };
  // Cumulative (summaries are cumulative too): a moved start, a drop or changed buckets is a reset.
  const dropped = monotonic || type !== "sum" ? ` OR p.${x} < p.${px}` : "";
  const shape = histogram ? " OR obs_same_shape(p.detail, p.pd) = 0" : "";
  const reset = `(CASE WHEN p.ps IS NULL THEN 0 WHEN p.start_ns <> p.ps${dropped}${shape} THEN 1 ELSE 0 END)`;
  // The series' decision on its first point, made when it was created (metric-rollup.ts firstCountsWhole).
  const started = "p.fw = 1";
  const rule = (now: string, before: string) =>
    `CASE WHEN p.ps IS NULL THEN (CASE WHEN ${started} THEN ${now} ELSE 0 END) WHEN ${reset} = 1 THEN ${now} ELSE ${now} - ${before} END`;
  const cumulative = {
    reset,
    increase: rule(`p.${x}`, `p.${px}`),
    sumIncrease: rule("p.sum", "p.psum"),
    buckets:
      histogram && needBuckets
        ? `CASE WHEN p.ps IS NULL THEN obs_bucket_increase(p.detail, NULL, CASE WHEN ${started} THEN 'whole' ELSE 'zero' END)
        WHEN ${reset} = 1 THEN obs_bucket_increase(p.detail, NULL, 'whole') ELSE obs_bucket_increase(p.detail, p.pd, 'diff') END`
        : none.buckets,
  };
  // Identities of both temporalities read as one: each point by its series' own (sel.tp).
  const rules = !counter
    ? none
    : merged(query)
      ? {
          reset: `(CASE WHEN p.tp = 1 THEN ${delta.reset} ELSE ${cumulative.reset} END)`,
          increase: `(CASE WHEN p.tp = 1 THEN ${delta.increase} ELSE ${cumulative.increase} END)`,
          sumIncrease: `(CASE WHEN p.tp = 1 THEN ${delta.sumIncrease} ELSE ${cumulative.sumIncrease} END)`,
          buckets: `(CASE WHEN p.tp = 1 THEN ${delta.buckets} ELSE ${cumulative.buckets} END)`,
        }
      : temporality === 1
        ? delta
        : cumulative;
  const { increase, sumIncrease, buckets } = rules;
  const resets = rules.reset;
  const tp = merged(query) ? ", sel.tp AS tp" : "";
  return `pts AS (SELECT q.*, sel.first_whole AS fw${tp}, lag(q.start_ns) OVER w AS ps, lag(q.value) OVER w AS pv, lag(q.count) OVER w AS pc,
      lag(q.sum) OVER w AS psum, lag(q.detail) OVER w AS pd
    FROM metric_points q JOIN sel ON sel.id = q.series_id WHERE q.time_ns BETWEEN sel.prev_ns AND @to AND ${RECORDED}
    WINDOW w AS (PARTITION BY q.series_id ORDER BY q.time_ns)),
  cells AS (SELECT obs_series_group(p.series_id) AS gid, p.series_id, (p.time_ns - @first) / @stepNs AS b, 1 AS points, p.time_ns AS last_ns,
      p.value AS value_sum, coalesce(p.min, p.value) AS value_min, coalesce(p.max, p.value) AS value_max,
      p.value AS value_last, ${increase} AS increase, ${sumIncrease} AS sum_increase, ${resets} AS resets,
      ${buckets} AS buckets
    FROM pts p WHERE p.time_ns >= @first)`;
}

/** The value of one group and bucket, over its cells; `two` when it needs each series' newest cell first. */
function aggregate(query: MetricBucketQuery): { value: string; two: boolean } {
  const family = aggFamily(query.metric);
  const q = quantileOf(query.agg);
  if (q !== null) {
    return family === "summary"
      ? { value: `obs_summary_quantile(buckets, w, ${q})`, two: true }
      : { value: `obs_bucket_quantile(buckets, ${q}, value_min, value_max)`, two: false };
  }
  switch (query.agg) {
    case "last":
      return { value: "sum(value_last)", two: true };
    case "rate":
      return { value: "sum(increase) / @stepSeconds", two: false };
    case "increase":
    case "count":
      return { value: "sum(increase)", two: false };
    case "sum":
      return {
        value: family === "gauge" ? "sum(value_sum)" : family === "sum" ? "sum(increase)" : "sum(sum_increase)",
        two: false,
      };
    case "avg":
      // Totals over totals: the same at every granularity (points, 60 s rows, merged 900 s
      // rows), as the slot aggregates count them too (slot-groups.ts).
      return {
        value: family === "gauge" ? "sum(value_sum) / sum(points)" : "sum(sum_increase) / nullif(sum(increase), 0)",
        two: false,
      };
    case "min":
      return { value: "min(value_min)", two: false };
    default:
      return { value: "max(value_max)", two: false };
  }
}

/**
 * Binds shared by both sources: the first bucket's start and the step, in ns and s; for rollups,
 * the slots of the width (slotLo to slotHi), the last of them read from the width's own rows
 * (rowsThrough: the newest packed slot, or the whole range for the folded width), and the
 * folded rows' slots after it (foldedLo to foldedHi).
 */
function stepBinds(query: MetricBucketQuery, firstNs: bigint, rowsThrough?: bigint): Bind {
  const stepNs = BigInt(query.stepMs) * NS_PER_MS;
  const bind: Bind = { stepNs, stepSeconds: query.stepMs / 1000 };
  if (query.source.kind === "rollups") {
    // Integers bound as BigInt, so SQLite divides them as integers.
    const width = BigInt(query.source.widthS);
    const slotLo = firstNs / 1_000_000_000n / width;
    const slotHi = query.toNs / 1_000_000_000n / width;
    const through = width === BigInt(FOLDED_S) ? slotHi : (rowsThrough ?? slotLo - 1n);
    const per = width / BigInt(FOLDED_S);
    Object.assign(bind, {
      width,
      firstS: firstNs / 1_000_000_000n,
      stepS: BigInt(query.stepMs / 1000),
      slotLo,
      slotHi,
      rowsThrough: through,
      foldedLo: (through + 1n) * per,
      // Through the minute of the window's end, as a minute's step reads, not to its wider slot's
      // end: points stamped up to 14 minutes ahead of now (a sender whose clock runs ahead) counted
      // at a 15-minute step alone. A minute row holds its minute whole, so a point less than a
      // minute ahead counts at either step (on the points, not at all).
      foldedHi: width === BigInt(FOLDED_S) ? through : query.toNs / 1_000_000_000n / BigInt(FOLDED_S),
    });
  }
  return bind;
}

/**
 * `WITH ... cells` of a query: the cells of the series obs_series_group() numbers (set from
 * seriesSql's rows first). The points need the scope's series too, for where each starts.
 */
export function cellsSql(query: MetricBucketQuery, firstNs: bigint, rowsThrough?: bigint): { sql: string; bind: Bind } {
  const stepBind = stepBinds(query, firstNs, rowsThrough);
  if (query.source.kind === "rollups") {
    return { sql: `WITH ${rollupCells(query)}`, bind: { ...metricBinds(query), ...stepBind } };
  }
  const series = seriesSql(query, [], firstNs, true);
  const cells = pointCells(query, quantileOf(query.agg) !== null);
  return { sql: `WITH ${series.sql}, ${cells}`, bind: { ...series.bind, ...stepBind } };
}

/** Rows of (gid, b, value, resets) per group number and bucket; a null gid holds the rows out of scope. */
export function bucketSql(
  query: MetricBucketQuery,
  firstNs: bigint,
  rowsThrough?: bigint,
): { sql: string; bind: Bind } {
  const base = cellsSql(query, firstNs, rowsThrough);
  const { value, two } = aggregate(query);
  // Each series' newest cell per bucket: SQLite takes the bare columns from the max(last_ns) row.
  const from = two
    ? `(SELECT gid, b, max(last_ns) AS t, value_last, buckets, sum(increase) AS w, sum(resets) AS resets
        FROM cells GROUP BY series_id, b)`
    : "cells";
  const sql = `${base.sql} SELECT gid, b, ${value} AS value, sum(resets) AS resets FROM ${from} GROUP BY gid, b`;
  return { sql, bind: base.bind };
}

/**
 * The scans of a query's rows with exemplars, in the order to read them, each newest first
 * where an index gives that order without sorting: rows of (series id, time ns, text), the text
 * a rollup row's exemplars (store/rollup-exemplars.ts; the time its newest point's, which none
 * of them is newer than) or a point's exemplars JSON. Only
 * rows of series in scope that obs_exemplars_wanted() still wants are read, so once each group
 * has its newest the older rows are passed over in SQLite; newest first, few are read. Points
 * only with a recorded value, the ones the rollups fold.
 */
export function exemplarSql(
  query: MetricBucketQuery,
  firstNs: bigint,
  rowsThrough?: bigint,
): { scans: string[]; bind: Bind; points: boolean } {
  const bind = { ...metricBinds(query), first: firstNs, to: query.toNs, ...stepBinds(query, firstNs, rowsThrough) };
  if (query.source.kind === "rollups") {
    const rows = (width: string, lo: string, hi: string) =>
      `SELECT r.series_id, r.last_ns, r.exemplars FROM metric_rollups r
        WHERE ${metricIn(query, "r.metric_id")} AND r.width_s = ${width} AND r.slot BETWEEN ${lo} AND ${hi}
          AND r.exemplars IS NOT NULL AND obs_exemplars_wanted(r.series_id, r.last_ns)
        ORDER BY r.slot DESC, r.series_id DESC`;
    // The folded rows' slots come after the width's own.
    const scans = [rows(String(FOLDED_S), "@foldedLo", "@foldedHi"), rows("@width", "@slotLo", "@rowsThrough")];
    return { scans, bind, points: false };
  }
  const scan = `SELECT p.series_id, p.time_ns, p.exemplars FROM metric_points p
      WHERE p.series_id IN (SELECT ms.id FROM metric_series ms WHERE ${metricIn(query, "ms.metric_id")})
        AND p.time_ns BETWEEN @first AND @to AND p.exemplars IS NOT NULL AND ${recordedSql("p.")}
        AND obs_exemplars_wanted(p.series_id, p.time_ns)
      ORDER BY p.series_id DESC, p.time_ns DESC`;
  return { scans: [scan], bind, points: true };
}
