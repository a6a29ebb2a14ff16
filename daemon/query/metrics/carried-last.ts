/**
 * `last` over several series: each bucket sums every series' newest value at the bucket's end,
 * not only the values of the series that reported in the bucket. Two processes exporting a
 * gauge every minute, 30 s apart, each report in one 30 s bucket of two: summed per bucket,
 * their total read one process's half the time; at the window's end, the newest bucket read
 * only the processes that had exported since it began.
 *
 * So a series' newest value counts in the buckets after it until its next point, as a
 * Prometheus instant query reads a series' last sample before the evaluation time, but for a
 * time of its own rather than a fixed five minutes: at most twice the time from its point before
 * (a process that stopped drops out after two of its intervals, where a fixed five minutes
 * counted a replaced pod beside its successor), and at most MAX_CARRY_NS. The same reach
 * decides whether a value counts in its own bucket, at the bucket's end (lastSql). Pure.
 */

/** The longest a series' newest value is carried: Prometheus's default lookback. */
export const MAX_CARRY_NS = 5n * 60n * 1_000_000_000n;

/** A series' newest value in bucket `b`, followed by buckets without a value of it. */
export interface CarriedValue {
  seriesId: number;
  gid: number;
  /** The bucket it is the series' newest value in: negative before the window's first bucket. */
  b: number;
  value: number;
  timeNs: bigint;
  /** The time from the series' newest value in its bucket before; null for its first. */
  gapNs: bigint | null;
  /** The series' next bucket with a value; null when none. */
  next: number | null;
}

/**
 * Adds each carried value to its group's buckets after `b`, up to the series' next bucket with
 * a value, while a bucket's end (capped at `toNs`, now) is within the value's reach. `values`
 * are the groups' per-bucket sums of the series' own newest values (null: none yet). Returns
 * the series whose carried value counted in a bucket, per group.
 */
export function carryLast(
  values: (number | null)[][],
  carried: readonly CarriedValue[],
  bucket: { starts: readonly bigint[]; stepNs: bigint; toNs: bigint },
): Map<number, Set<number>> {
  const counted = new Map<number, Set<number>>();
  const buckets = bucket.starts.length;
  for (const c of carried) {
    const row = values[c.gid];
    if (row === undefined) continue;
    const reach = c.gapNs === null || 2n * c.gapNs > MAX_CARRY_NS ? MAX_CARRY_NS : 2n * c.gapNs;
    const until = c.next === null ? buckets : Math.min(c.next, buckets);
    for (let k = Math.max(c.b + 1, 0); k < until; k++) {
      const start = bucket.starts[k] as bigint;
      const end = start + bucket.stepNs < bucket.toNs ? start + bucket.stepNs : bucket.toNs;
      if (end - c.timeNs > reach) break;
      row[k] = (row[k] ?? 0) + c.value;
      let series = counted.get(c.gid);
      if (series === undefined) {
        series = new Set();
        counted.set(c.gid, series);
      }
      series.add(c.seriesId);
    }
  }
  return counted;
}
