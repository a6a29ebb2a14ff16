import type { ExpBuckets, MetricKind } from "../otlp/records.js";
import { addSides, bucketIncrease } from "./exp-buckets.js";
import { addExplicitInto } from "./explicit-buckets.js";
import type { ExponentialDetail, HistogramDetail, PointDetail, SummaryDetail } from "./metric-point-detail.js";
import { slotOf } from "./metric-slots.js";
import { newestExemplars, type RowExemplar } from "./rollup-exemplars.js";

/**
 * Per-series metric rollups, as pure functions: from a series' previous point and its new
 * points to `metric_rollups` rows. The writer folds in-order points into the rows it holds
 * (metric-writer.ts) and refolds a slot from its stored points when an older point arrives,
 * with the same functions, so a row never depends on the order points arrived in.
 */

/** What a series' points mean: the rules of their increase. */
export interface SeriesKind {
  kind: MetricKind;
  /** 1 delta, 2 cumulative, 0 unspecified (read as cumulative for every kind with a count). */
  temporality: number;
  monotonic: boolean;
  /** Whether a cumulative series' first point counts whole (`firstCountsWhole`, kept in metric_series.first_whole). */
  firstWhole: boolean;
}

/** A series' kind from its stored columns (metrics.kind, .temporality, .monotonic; metric_series.first_whole). */
export function storedSeriesKind(row: {
  kind: MetricKind;
  temporality: number | bigint;
  monotonic: number | bigint;
  first_whole: number | bigint;
}): SeriesKind {
  return {
    kind: row.kind,
    temporality: Number(row.temporality),
    monotonic: Number(row.monotonic) === 1,
    firstWhole: Number(row.first_whole) === 1,
  };
}

/** A point as rollups read it: a new record, or a stored `metric_points` row. */
export interface RollupPoint {
  timeNs: bigint;
  /** 0 when not sent. */
  startNs: bigint;
  value: number | null;
  count: number | null;
  sum: number | null;
  min: number | null;
  max: number | null;
  detail: PointDetail | null;
  /** Its exemplars' trace ids, newest first (exemplarTraceIds). */
  traceIds: readonly string[];
  /** The point's flags (NO_RECORDED_VALUE). */
  flags: number;
}

/** OTLP's DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK: the point stands for missing data. */
export const NO_RECORDED_VALUE = 1;

/**
 * Whether a point has a value to aggregate: not flagged NO_RECORDED_VALUE (a Prometheus
 * staleness marker, through a collector), and, for a gauge or a sum, a value (one absent, or
 * NaN, which SQLite keeps as NULL, is none). A point without one is stored like any other but
 * adds nothing to its slot's rollups, and the series' next point takes its increase from the
 * newest point that had one: a gap, not a reset to zero. The raw-point queries skip it too
 * (`recordedSql`, as `RECORDED` in metric-bucket-sql.ts).
 */
export function recorded(point: Pick<RollupPoint, "flags" | "value" | "count">): boolean {
  return (point.flags & NO_RECORDED_VALUE) === 0 && (point.value !== null || point.count !== null);
}

/** `recorded` in SQL, over a `metric_points` row (its alias and a dot, or ""). */
export const recordedSql = (alias: string): string =>
  `(${alias}flags & ${NO_RECORDED_VALUE}) = 0 AND coalesce(${alias}value, ${alias}count) IS NOT NULL`;

/** Exponential buckets' increases (the zero threshold is not kept). */
export interface ExponentialIncrease {
  scale: number;
  zeroCount: number;
  positive: ExpBuckets;
  negative: ExpBuckets;
}

/** `metric_rollups.buckets`: increases per bucket, or a summary's newest quantiles. */
export type RollupBuckets = HistogramDetail | ExponentialIncrease | SummaryDetail;

/** One `metric_rollups` row of a series, without its metric and series ids. */
export interface RollupRow {
  widthS: number;
  slot: number;
  points: number;
  firstNs: bigint;
  lastNs: bigint;
  valueSum: number | null;
  valueMin: number | null;
  valueMax: number | null;
  valueLast: number | null;
  increase: number | null;
  sumIncrease: number | null;
  resets: number;
  buckets: RollupBuckets | null;
  /** Up to EXEMPLARS_KEPT, newest first by their points' times (rollup-exemplars.ts). */
  exemplars: RowExemplar[];
}

/** A point's contribution to its slot's increases. */
export interface PointIncrease {
  increase: number | null;
  sumIncrease: number | null;
  reset: boolean;
  buckets: RollupBuckets | null;
}

const hasCount = (kind: MetricKind): boolean => kind !== "gauge" && kind !== "sum";

/**
 * Whether a new cumulative series' first point counts its whole value, decided when the
 * series is created, and again by a late point older than its first (metric-writer.ts): when
 * its start time is set, not after the point, and at or after the collector started (a process
 * started earlier sends its lifetime count, which is not growth this collector saw: the point
 * is the baseline, as cumulativetodelta's `initial_value: auto`).
 * A start equal to the point's time counts whole whenever it is (a process that records and
 * exports within a millisecond: its whole value is that instant's growth).
 */
export function firstCountsWhole(point: { startNs: bigint; timeNs: bigint }, collectorStartNs: bigint): boolean {
  const set = point.startNs > 0n && point.startNs <= point.timeNs;
  return set && (point.startNs >= collectorStartNs || point.startNs === point.timeNs);
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The buckets of a point counted whole (a delta point, a reset, a series' first point). */
function wholeBuckets(kind: MetricKind, detail: PointDetail | null, zero: boolean): RollupBuckets | null {
  if (detail === null) return null;
  if (kind === "summary") return { quantiles: (detail as SummaryDetail).quantiles };
  if (kind === "histogram") {
    const { bounds, counts } = detail as HistogramDetail;
    return { bounds, counts: zero ? counts.map(() => 0) : counts };
  }
  const exp = detail as ExponentialDetail;
  const none = { offset: 0, bucketCounts: [] };
  return zero
    ? { scale: exp.scale, zeroCount: 0, positive: none, negative: none }
    : { scale: exp.scale, zeroCount: exp.zeroCount, positive: exp.positive, negative: exp.negative };
}

/** The buckets' increase from `prev` to `point`, same shape (not a reset). */
function bucketDelta(kind: MetricKind, prev: PointDetail | null, point: PointDetail | null): RollupBuckets | null {
  if (point === null) return null;
  if (kind === "summary" || prev === null) return wholeBuckets(kind, point, false);
  if (kind === "histogram") {
    const before = (prev as HistogramDetail).counts;
    const { bounds, counts } = point as HistogramDetail;
    return { bounds, counts: counts.map((c, i) => Math.max(0, c - (before[i] ?? 0))) };
  }
  const a = point as ExponentialDetail;
  const b = prev as ExponentialDetail;
  return {
    scale: Math.min(a.scale, b.scale),
    zeroCount: Math.max(0, a.zeroCount - b.zeroCount),
    positive: bucketIncrease(a.positive, a.scale, b.positive, b.scale),
    negative: bucketIncrease(a.negative, a.scale, b.negative, b.scale),
  };
}

/**
 * Whether an explicit histogram's bounds changed: its counts restarted. An exponential
 * histogram's new scale is not a restart (SDKs lower it as values widen the range, counts
 * carrying on), so bucketDelta() compares the two points at the lower scale.
 */
function shapeChanged(kind: MetricKind, prev: PointDetail | null, point: PointDetail | null): boolean {
  if (prev === null || point === null || kind !== "histogram") return false;
  return !sameNumbers((prev as HistogramDetail).bounds, (point as HistogramDetail).bounds);
}

const minus = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);

/**
 * What `point` adds to its slot's increases, given the series' previous point (null for its
 * first). Delta points count whole. Cumulative points count their growth from the previous
 * point; a reset (a new start time; a drop of a monotonic sum's value or of a count; new
 * explicit bounds) counts the point whole; a series' first point counts whole when the series
 * says so (`firstCountsWhole`), else nothing (it is the baseline).
 */
export function pointIncrease(series: SeriesKind, prev: RollupPoint | null, point: RollupPoint): PointIncrease {
  const { kind } = series;
  if (kind === "gauge") return { increase: null, sumIncrease: null, reset: false, buckets: null };
  const counted = hasCount(kind);
  const whole = (reset: boolean, zero: boolean): PointIncrease => ({
    increase: zero ? 0 : counted ? point.count : point.value,
    sumIncrease: counted ? (zero ? (point.sum === null ? null : 0) : point.sum) : null,
    reset,
    buckets: wholeBuckets(kind, point.detail, zero),
  });
  if (series.temporality === 1 && kind !== "summary") return whole(false, false);
  if (prev === null) return whole(false, !series.firstWhole);
  if (point.startNs !== prev.startNs) return whole(true, false);
  if (counted) {
    if ((point.count ?? 0) < (prev.count ?? 0) || shapeChanged(kind, prev.detail, point.detail)) {
      return whole(true, false);
    }
    return {
      increase: (point.count ?? 0) - (prev.count ?? 0),
      sumIncrease: minus(point.sum, prev.sum),
      reset: false,
      buckets: bucketDelta(kind, prev.detail, point.detail),
    };
  }
  const value = point.value ?? 0;
  const before = prev.value ?? 0;
  if (series.monotonic && value < before) return whole(true, false);
  return { increase: value - before, sumIncrease: null, reset: false, buckets: null };
}

const plus = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);
const lower = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
const higher = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b);

/**
 * A slot's buckets with one more point's. Explicit buckets under other bounds (a reset to new
 * bounds within the slot) are merged under both bounds, each at its own upper bound, as the
 * raw-points path merges a bucket's points (explicit-buckets.ts): the slot's bucket totals stay
 * its count, and a query answers the same from the rollups as from the points.
 */
function mergeBuckets(
  kind: MetricKind,
  row: RollupBuckets | null,
  add: RollupBuckets | null,
  newer: boolean,
): RollupBuckets | null {
  if (row === null) return add;
  if (add === null) return row;
  if (kind === "summary") return newer ? add : row;
  if (kind === "histogram") {
    const a = row as HistogramDetail;
    const b = add as HistogramDetail;
    const [first, then] = newer ? [a, b] : [b, a];
    const into = { bounds: first.bounds, counts: [...first.counts] };
    addExplicitInto(into, then);
    return into;
  }
  const a = row as ExponentialIncrease;
  const b = add as ExponentialIncrease;
  const { scale, positive, negative } = addSides(a, b);
  return { scale, zeroCount: a.zeroCount + b.zeroCount, positive, negative };
}

/**
 * The slot's exemplars with a point's (`traceIds` newest first: exemplarTraceIds), each at the
 * point's time: the newest by that time, distinct, at most EXEMPLARS_KEPT; of one time, the
 * newer point's first (as the points' query orders a series' points).
 */
function mergeExemplars(kept: RowExemplar[], point: RollupPoint, newer: boolean): RowExemplar[] {
  if (point.traceIds.length === 0) return kept;
  const added = point.traceIds.map((traceId) => ({ traceId, timeNs: point.timeNs }));
  return newestExemplars(newer ? [...added, ...kept] : [...kept, ...added]);
}

/** An empty row of a slot, before its first point. */
export function emptyRow(widthS: number, slot: number): RollupRow {
  return {
    widthS,
    slot,
    points: 0,
    firstNs: 0n,
    lastNs: 0n,
    valueSum: null,
    valueMin: null,
    valueMax: null,
    valueLast: null,
    increase: null,
    sumIncrease: null,
    resets: 0,
    buckets: null,
    exemplars: [],
  };
}

/**
 * The observations buckets count (a summary's quantiles: taken as some). A point whose buckets
 * count none (a delta point of an empty interval, a cumulative one that did not grow) has no
 * observation outside any range, with or without a min and max.
 */
export function observationsIn(buckets: RollupBuckets | null): number {
  if (buckets === null) return 0;
  if ("quantiles" in buckets) return Number.POSITIVE_INFINITY;
  const total = (counts: readonly number[]) => counts.reduce((sum, count) => sum + count, 0);
  if ("counts" in buckets) return total(buckets.counts);
  return buckets.zeroCount + total(buckets.positive.bucketCounts) + total(buckets.negative.bucketCounts);
}

/**
 * Whether a histogram's row that adds observations counted by `buckets` whose min and max are
 * `min` and `max` (a point's, or a row's) has no range: they came without them, or the row's
 * observations so far did. Observations without them may lie anywhere in their buckets, so a
 * quantile is not held within the others' (BucketMerge, which the points of a raw-point bucket
 * go through one by one, decides alike).
 */
function rangeUnknown(row: RollupRow, buckets: RollupBuckets | null, min: number | null, max: number | null): boolean {
  const unbounded = (counted: RollupBuckets | null, lo: number | null, hi: number | null) =>
    (lo === null || hi === null) && observationsIn(counted) > 0;
  return unbounded(buckets, min, max) || unbounded(row.buckets, row.valueMin, row.valueMax);
}

/** `row` with `point` (of its slot) and its increase added; a new row, `row` is left as it was. */
export function addToRow(series: SeriesKind, row: RollupRow, point: RollupPoint, inc: PointIncrease): RollupRow {
  const newer = row.points === 0 || point.timeNs >= row.lastNs;
  const valued = series.kind === "gauge" || series.kind === "sum";
  const unranged = !valued && rangeUnknown(row, inc.buckets, point.min, point.max);
  return {
    widthS: row.widthS,
    slot: row.slot,
    points: row.points + 1,
    firstNs: row.points === 0 || point.timeNs < row.firstNs ? point.timeNs : row.firstNs,
    lastNs: newer ? point.timeNs : row.lastNs,
    valueSum: valued ? plus(row.valueSum, point.value) : null,
    valueMin: unranged ? null : lower(row.valueMin, valued ? point.value : point.min),
    valueMax: unranged ? null : higher(row.valueMax, valued ? point.value : point.max),
    valueLast: valued && newer ? point.value : row.valueLast,
    increase: plus(row.increase, inc.increase),
    sumIncrease: plus(row.sumIncrease, inc.sumIncrease),
    resets: row.resets + (inc.reset ? 1 : 0),
    buckets: mergeBuckets(series.kind, row.buckets, inc.buckets, newer),
    exemplars: mergeExemplars(row.exemplars, point, newer),
  };
}

/**
 * The rollup rows of `points` (one series, ascending time, all after `prev`, the newest point
 * before them that was `recorded`; those not recorded are skipped), one per width and slot
 * they fall in, each slot's row started from `existing` when given (the slot's row so far) or
 * empty. Returns the rows in order of width then slot.
 */
export function rollupPoints(
  series: SeriesKind,
  prev: RollupPoint | null,
  points: readonly RollupPoint[],
  widths: readonly number[],
  existing: (widthS: number, slot: number) => RollupRow | undefined = () => undefined,
): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  let before = prev;
  for (const point of points) {
    if (!recorded(point)) continue;
    const inc = pointIncrease(series, before, point);
    for (const width of widths) {
      const slot = slotOf(point.timeNs, width);
      const key = `${width}:${slot}`;
      const row = rows.get(key) ?? existing(width, slot) ?? emptyRow(width, slot);
      rows.set(key, addToRow(series, row, point, inc));
    }
    before = point;
  }
  return [...rows.values()].sort((a, b) => a.widthS - b.widthS || a.slot - b.slot);
}

/**
 * The row of a wider slot from rows of its narrower slots (one series), as if its points had
 * been folded into it: counts and increases add up, the newest value is the newest row's,
 * buckets merge as the points' do, exemplars are the newest by their points' times. `rows`
 * ascend in time and do not overlap (a 900 s slot's fifteen 60 s rows, metric-slot-packer.ts).
 * Sums are added row by row, so a total can differ from the points' own running sum in its
 * last bits.
 */
export function mergeRows(kind: MetricKind, widthS: number, slot: number, rows: readonly RollupRow[]): RollupRow {
  let into = emptyRow(widthS, slot);
  const valued = kind === "gauge" || kind === "sum";
  for (const row of rows) {
    if (row.points === 0) continue;
    const first = into.points === 0;
    const unranged = !valued && rangeUnknown(into, row.buckets, row.valueMin, row.valueMax);
    into = {
      widthS,
      slot,
      points: into.points + row.points,
      firstNs: first || row.firstNs < into.firstNs ? row.firstNs : into.firstNs,
      lastNs: first || row.lastNs > into.lastNs ? row.lastNs : into.lastNs,
      valueSum: plus(into.valueSum, row.valueSum),
      valueMin: unranged ? null : lower(into.valueMin, row.valueMin),
      valueMax: unranged ? null : higher(into.valueMax, row.valueMax),
      valueLast: valued ? row.valueLast : into.valueLast,
      increase: plus(into.increase, row.increase),
      sumIncrease: plus(into.sumIncrease, row.sumIncrease),
      resets: into.resets + row.resets,
      buckets: mergeBuckets(kind, into.buckets, row.buckets, true),
      exemplars: row.exemplars.length === 0 ? into.exemplars : newestExemplars([...row.exemplars, ...into.exemplars]),
    };
  }
  return into;
}
