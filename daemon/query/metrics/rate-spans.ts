/**
 * A rate is a series' increase over the time that increase was made in, so it reads as fast as
 * the counter ran whatever the bucket holds:
 *
 * - A bucket still open at the window's end (the newest: the window ends now) holds only the
 *   increases made so far. Divided by the whole step, a 15-minute bucket one minute old reads a
 *   fifteenth of the rate.
 * - A bucket narrower than a series' export interval holds, when it holds a point, the growth
 *   of a whole interval. Divided by the step, it reads several times the rate.
 *
 * So a series' rate in a bucket is its increase divided by the time from when its first
 * increase there began to its newest point: a cumulative point's increase begins at the point
 * before it; a delta point's at its own start time; a series' first point's at its start time
 * when it counts whole, else it is the baseline and adds nothing. A group's rate is the sum of
 * its series' rates. A span that is unknown (one point counted whole, without a start time)
 * falls back to the step.
 *
 * Raw points carry all of that (metric-bucket-sql.ts applies it to every bucket). A rollup row
 * does not know when the increase of its slot's first point began, and a closed bucket at a
 * step of a minute or more holds about a step of every series' increases anyway; so on the
 * rollup path only the newest bucket is read this way, here, with one look-up of the point
 * before it per series.
 */
import { FOLDED_WIDTHS_S } from "../../store/metric-slots.js";
import type { MetricBucketQuery } from "../telemetry-reader.js";
import type { Bind } from "./metric-bucket-sql.js";

const NS_PER_S = 1e9;
/** The width of the rows every slot has. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];

/** A series' rate from its increase, the ns it spans, and the step (s) when the span is unknown. */
export function seriesRate(increase: number, spanNs: number, stepSeconds: number): number {
  return spanNs > 0 ? (increase * NS_PER_S) / spanNs : increase / stepSeconds;
}

/** When a point's start time is set and before the point, that start; else null. */
const startOf = (point: string) =>
  `(SELECT CASE WHEN q.start_ns > 0 AND q.start_ns < q.time_ns THEN q.start_ns END FROM metric_points q
    WHERE q.series_id = per.series_id AND q.time_ns = ${point})`;
const PREVIOUS =
  "(SELECT max(q.time_ns) FROM metric_points q WHERE q.series_id = per.series_id AND q.time_ns < @bucket)";

/**
 * Rows of (gid, increase, newest point ns, since ns) per series with points in the bucket
 * starting at `bucketNs` (gid null for a series outside the scope), read from its 60 s rows:
 * every slot has them, packed or not, and a step on the rollup path is a multiple of a minute.
 * Summed per series before the group is looked up: once a series, not once a row.
 */
export function newestRateSql(query: MetricBucketQuery, bucketNs: bigint): { sql: string; bind: Bind } {
  const since =
    query.metric.temporality === 1
      ? `coalesce(${startOf("per.first")}, ${PREVIOUS}, per.first)`
      : `coalesce(${PREVIOUS}, CASE WHEN (SELECT ms.first_whole FROM metric_series ms WHERE ms.id = per.series_id) = 1
          THEN ${startOf("per.first")} END, per.first)`;
  const sql = `WITH per AS (SELECT series_id, sum(increase) AS inc, min(first_ns) AS first, max(last_ns) AS last
      FROM metric_rollups WHERE metric_id = @metric AND width_s = ${FOLDED_S} AND slot BETWEEN @slotLo AND @slotHi
      GROUP BY series_id)
    SELECT obs_series_group(per.series_id) AS gid, inc, last, ${since} AS since FROM per WHERE inc IS NOT NULL`;
  const slotNs = BigInt(FOLDED_S) * 1_000_000_000n;
  return {
    sql,
    bind: { metric: query.metric.id, slotLo: bucketNs / slotNs, slotHi: query.toNs / slotNs, bucket: bucketNs },
  };
}
