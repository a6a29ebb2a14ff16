/**
 * The newest bucket's rate. A bucket's rate is its increase per second of the step, but the
 * newest bucket is still open when the window ends now: it holds only the increases made so
 * far, and of the series that exported so far. Divided by the whole step, a 15-minute bucket one
 * minute old read a fifteenth of the rate.
 *
 * So the newest bucket's rate is read as Prometheus reads `rate()` at the end of a range: over
 * a trailing window (the step's whole minutes before the current minute, at most five, and the
 * current one so far, from the 60 s rollup rows, which every slot has), per series, its increase there
 * divided by the time that increase spans, from when its first increase there began to its
 * newest point; a group's rate is the sum of its series' rates. Each series counts over its own
 * span, so series that export at different moments all count whatever the phase of now, and a
 * series that exports every minute reads its rate, not a minute's growth over the seconds since.
 *
 * When an increase began: a cumulative point's at the point before it, or at its start time
 * when that is later (a restarted process: it counted from its new start, not through the
 * downtime); a delta point's at its start time (else the point before); a series' first point's
 * at its start time when it counts whole, else it is a baseline that adds nothing and begins
 * where it is. A span that is unknown (one point counted whole, without a start time) falls back
 * to the step.
 */
import { FOLDED_WIDTHS_S } from "../../store/metric-slots.js";
import type { MetricBucketQuery } from "../telemetry-reader.js";
import type { Bind } from "./metric-bucket-sql.js";

/** The width of the rows every slot has. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];
const NS_PER_S = 1_000_000_000n;

/** One series over the trailing window, as newestRateSql reads it. */
export interface SeriesWindow {
  /** Its increases in the window. */
  increase: number;
  /** Its first and newest point in the window. */
  firstNs: bigint;
  lastNs: bigint;
  /** Its point before the window's first, if any. */
  previousNs: bigint | null;
  /** The first point's start time, when set and before the point. */
  startNs: bigint | null;
  /** Whether the series' first point counts whole (metric_series.first_whole). */
  firstWhole: boolean;
}

/** When the series' first increase in the window began (see above). */
export function increaseSince(series: SeriesWindow, delta: boolean): bigint {
  const { previousNs, startNs } = series;
  if (delta) return startNs ?? previousNs ?? series.firstNs;
  if (previousNs !== null) return startNs !== null && startNs > previousNs ? startNs : previousNs;
  return series.firstWhole && startNs !== null ? startNs : series.firstNs;
}

/** A series' rate over the window: its increase per second of the time it spans, else of the step. */
export function seriesRate(series: SeriesWindow, delta: boolean, stepSeconds: number): number {
  const spanNs = Number(series.lastNs - increaseSince(series, delta));
  return spanNs > 0 ? (series.increase * 1e9) / spanNs : series.increase / stepSeconds;
}

/**
 * The most whole minutes a trailing window holds before the current one. Five hold a point of
 * every series that exports at least every five minutes (SDKs default to one), so each counts,
 * and keep a day's rate from reading a step's worth of rows again (fifteen minutes measured about
 * 6 ms a query at 1,000 series, docs/metrics-store.md).
 */
export const TRAILING_MINUTES_MAX = 5;

/**
 * The window's 60 s slots, as [lo, hi]: from the step's whole minutes (at least one, at most
 * TRAILING_MINUTES_MAX) before the minute holding the window's end, to the newest bucket's last
 * minute, where the bucket query reads too (a point stamped ahead of now counts in both).
 */
export function trailingSlots(toNs: bigint, bucketNs: bigint, stepMs: number): [bigint, bigint] {
  const slotNs = BigInt(FOLDED_S) * NS_PER_S;
  const minutes = BigInt(Math.min(Math.ceil(stepMs / (FOLDED_S * 1000)), TRAILING_MINUTES_MAX));
  const bucketEndNs = bucketNs + BigInt(stepMs) * 1_000_000n - 1n;
  return [toNs / slotNs - minutes, bucketEndNs / slotNs];
}

/**
 * Rows of (gid, increase, first ns, newest ns, previous ns, start ns, first whole) per in-scope
 * series with points in the trailing window of the newest bucket (starting at `bucketNs`).
 * Summed per series from the rows before the group is looked up (once a series, not once a
 * row), and the look-ups of the point before and of the first point's start only for series
 * in the scope.
 */
export function newestRateSql(query: MetricBucketQuery, bucketNs: bigint): { sql: string; bind: Bind } {
  const [slotLo, slotHi] = trailingSlots(query.toNs, bucketNs, query.stepMs);
  const sql = `WITH per AS MATERIALIZED (SELECT obs_series_group(series_id) AS gid, series_id, sum(increase) AS inc,
        min(first_ns) AS first, max(last_ns) AS last
      FROM metric_rollups WHERE metric_id = @metric AND width_s = ${FOLDED_S} AND slot BETWEEN @slotLo AND @slotHi
      GROUP BY series_id)
    SELECT gid, inc, first, last,
      (SELECT max(q.time_ns) FROM metric_points q WHERE q.series_id = per.series_id AND q.time_ns < per.first),
      (SELECT CASE WHEN q.start_ns > 0 AND q.start_ns < q.time_ns THEN q.start_ns END FROM metric_points q
        WHERE q.series_id = per.series_id AND q.time_ns = per.first),
      (SELECT ms.first_whole FROM metric_series ms WHERE ms.id = per.series_id)
    FROM per WHERE gid IS NOT NULL AND inc IS NOT NULL`;
  return { sql, bind: { metric: query.metric.id, slotLo, slotHi } };
}
