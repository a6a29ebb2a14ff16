/**
 * The newest bucket's `last`: the value now. A bucket's `last` sums its series' newest values in
 * it; but the window ends now, so its newest bucket is still open, and holds the values only of
 * the series that reported since it began: two processes exporting a gauge every minute, 30 s
 * apart, read one of them half the time, and a 15-minute bucket a minute old read the series
 * that export every minute and left out the slower ones. A series that stopped in it still
 * counted, beside the one that replaced it.
 *
 * So the newest bucket reads, per series, its newest value in the last MAX_LAST_AGE_NS, as a
 * Prometheus instant query reads a series' last sample, but for a time of its own rather than a
 * fixed five minutes: while the value is no older than twice the series' interval (the mean gap
 * between its points in those minutes; a single point: MAX_LAST_AGE_NS), so a process that
 * stopped drops out after two of its intervals. The older buckets keep the values their series
 * reported in them (docs/api.md). Pure.
 */

/** The longest a series' newest value counts as its value now: Prometheus's default lookback. */
export const MAX_LAST_AGE_NS = 5n * 60n * 1_000_000_000n;

/** One series' points in the last MAX_LAST_AGE_NS: its newest value and time, its first time, how many. */
export interface SeriesLast {
  value: number;
  lastNs: bigint;
  firstNs: bigint;
  points: number;
}

/** The series' value now, or null when its newest one is older than its reach. */
export function valueNow(series: SeriesLast, nowNs: bigint): number | null {
  const gap = series.points > 1 ? (series.lastNs - series.firstNs) / BigInt(series.points - 1) : null;
  const reach = gap === null || 2n * gap > MAX_LAST_AGE_NS ? MAX_LAST_AGE_NS : 2n * gap;
  return nowNs - series.lastNs > reach ? null : series.value;
}
