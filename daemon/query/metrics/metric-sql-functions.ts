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

/**
 * The group number of each series of the query being run, read by obs_series_group(series_id)
 * (null for a series outside the query's scope). A lookup in a Map costs less than joining the
 * scope's series to every rollup row: SQLite would build an index on them per query, or worse,
 * scan them per row. Queries run one at a time on a connection, so one map per connection serves.
 */
export class SeriesGroups {
  private groups = new Map<number, number>();

  set(groups: Map<number, number>): void {
    this.groups = groups;
  }

  of(seriesId: number): number | null {
    return this.groups.get(seriesId) ?? null;
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
  // (buckets, q): the q-quantile of the rows' merged buckets.
  const bucketQuantile = {
    start: () => ({ merge: new BucketMerge(), q: 0 }),
    step: (state: { merge: BucketMerge; q: number }, buckets: unknown, q: unknown) => {
      state.q = Number(q);
      const detail = parsed(buckets);
      if (detail !== null) state.merge.add(detail);
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
