/**
 * SQL functions the metric queries use, so buckets are merged inside SQLite's GROUP BY
 * (one call per row, no row objects built in JavaScript).
 */
import type Database from "better-sqlite3";
import { BucketMerge, bucketIncrease, type HistogramDetail, SummaryQuantile, sameShape } from "./bucket-increase.js";

type AggregateOptions = Parameters<Database.Database["aggregate"]>[1];

function parsed(text: unknown): HistogramDetail | null {
  if (typeof text === "string") return JSON.parse(text) as HistogramDetail;
  if (Buffer.isBuffer(text)) return JSON.parse(text.toString("utf8")) as HistogramDetail;
  return null;
}

/** A REAL column's value, null for NULL (and for what is not a finite number). */
function finiteOrNull(value: unknown): number | null {
  const n = typeof value === "bigint" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
}

/** The widest id range looked up in a typed array (4 MiB); wider, sparser scopes use a Map. */
const MAX_DENSE_SPAN = 1 << 20;

/**
 * The group number of each series of the query being run, read by obs_series_group(series_id)
 * and the slot aggregates (null for a series outside the query's scope). A lookup in JavaScript
 * costs less than joining the scope's series to every rollup row: SQLite would build an index on
 * them per query, or worse, scan them per row. Series ids of a metric are mostly close together,
 * so an array indexed by id from the smallest answers the once-per-row lookup faster than a Map.
 * Queries run one at a time on a connection, so one lookup per connection serves.
 */
export class SeriesGroups {
  private groups = new Map<number, number>();
  private dense: Int32Array | null = null;
  private base = 0;

  set(groups: Map<number, number>): void {
    this.groups = groups;
    this.dense = null;
    if (groups.size === 0) return;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const id of groups.keys()) {
      lo = Math.min(lo, id);
      hi = Math.max(hi, id);
    }
    if (hi - lo >= MAX_DENSE_SPAN) return;
    const dense = new Int32Array(hi - lo + 1).fill(-1);
    for (const [id, gid] of groups) dense[id - lo] = gid;
    this.dense = dense;
    this.base = lo;
  }

  of(seriesId: number): number | null {
    if (this.dense === null) return this.groups.get(seriesId) ?? null;
    const gid = this.dense[seriesId - this.base];
    return gid === undefined || gid < 0 ? null : gid;
  }
}

/**
 * Defines obs_series_group, obs_same_shape, obs_bucket_increase, obs_bucket_quantile and
 * obs_summary_quantile on a connection; returns the series groups obs_series_group reads.
 */
export function registerMetricFunctions(db: Database.Database): SeriesGroups {
  const seriesGroups = new SeriesGroups();
  db.function("obs_series_group", { deterministic: false, safeIntegers: false }, (id: unknown) =>
    seriesGroups.of(Number(id)),
  );
  db.function("obs_same_shape", { deterministic: true }, (a: unknown, b: unknown) => {
    const x = parsed(a);
    const y = parsed(b);
    return x !== null && y !== null && sameShape(x, y) ? 1 : 0;
  });
  // (detail, previous detail, mode): the point's bucket increases as JSON (bucket-increase.ts).
  db.function("obs_bucket_increase", { deterministic: true }, (detail: unknown, previous: unknown, mode: unknown) => {
    const now = parsed(detail);
    if (now === null) return null;
    return JSON.stringify(bucketIncrease(now, parsed(previous), mode as "whole" | "zero" | "diff"));
  });
  // (buckets, q, min, max): the q-quantile of the rows' merged buckets, within their min and max.
  const bucketQuantile = {
    start: () => ({ merge: new BucketMerge(), q: 0 }),
    step: (state: { merge: BucketMerge; q: number }, buckets: unknown, q: unknown, min: unknown, max: unknown) => {
      state.q = Number(q);
      const detail = parsed(buckets);
      if (detail !== null) state.merge.add(detail, finiteOrNull(min), finiteOrNull(max));
    },
    result: (state: { merge: BucketMerge; q: number }) => state.merge.quantile(state.q),
  };
  db.aggregate("obs_bucket_quantile", bucketQuantile as unknown as AggregateOptions);
  // (quantiles JSON {"quantiles": [[q, v], ..]}, weight, q): SummaryQuantile in bucket-increase.ts.
  const summaryQuantile = {
    start: () => new SummaryQuantile(),
    step: (state: SummaryQuantile, buckets: unknown, weight: unknown, q: unknown) => {
      const detail = parsed(buckets) as { quantiles?: [number, number][] } | null;
      if (detail?.quantiles) state.add(detail.quantiles, weight === null ? null : Number(weight), Number(q));
    },
    result: (state: SummaryQuantile) => state.value(),
  };
  db.aggregate("obs_summary_quantile", summaryQuantile as unknown as AggregateOptions);
  return seriesGroups;
}
