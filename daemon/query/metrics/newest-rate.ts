/**
 * The newest bucket's rate. A bucket's rate is its increase per second of the step; but the
 * window ends now, so its newest bucket is still open and holds only the increases made so far.
 * Divided by the whole step, a 15-minute bucket one minute old read a fifteenth of the rate.
 *
 * So the newest bucket reads the rate now, as Prometheus's `rate(...[5m])` reads it at the end
 * of a range: per series, its increase in a trailing window (the five whole minutes before the
 * current one and the current one so far, from the 60 s rollup rows, which every slot has,
 * packed or not, whatever the query's source) over the time those increases span, from its
 * last point before the window to its newest (seriesRate). Divided by the window's length
 * instead, a series exporting every minute read 5 or 6 minutes' growth over 5 to 6 minutes by
 * the phase of now: a fifth off either way. One that stopped (its newest point more than an
 * interval and a tenth old) is divided by the time to now: it fades as its increases leave the
 * window, to 0. One without a point in the five minutes before the window (new in it) is
 * divided by the window's length, so that series that follow one another add up to their rate;
 * except in a group whose series all began in the window and still export (a service started
 * in the last minutes), where each reads its own rate (newGroupRate).
 *
 * The window does not follow the bucket or the query's window: from the bucket's start, a
 * day's step read a day of rows and averaged it; cut to a short query's window, a minute's
 * lookback divided one export's growth by the seconds since the minute began.
 */
import { FOLDED_WIDTHS_S } from "../../store/metric-slots.js";

/** The width of the rows every slot has. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];
const NS_PER_S = 1_000_000_000n;

/**
 * Whole minutes the trailing window holds before the current one: five hold several points of a
 * series that exports every minute (the SDKs' default), and a point of every series that exports
 * at least every five minutes. The same number of minutes before the window is searched for
 * each series' last point before it.
 */
export const TRAILING_MINUTES = 5;

/** The trailing window of the newest bucket: its 60 s slots (inclusive), its start, and its length to now in seconds. */
export interface TrailingWindow {
  slotLo: bigint;
  slotHi: bigint;
  fromNs: bigint;
  seconds: number;
}

/**
 * The window ending at `toNs` (now) of a query whose newest bucket starts at `bucketNs`,
 * `stepMs` wide. Its last slot is the newest bucket's last minute, where the bucket query reads
 * too, so a point stamped ahead of now counts in both.
 */
export function trailingWindow(bucketNs: bigint, stepMs: number, toNs: bigint): TrailingWindow {
  const slotNs = BigInt(FOLDED_S) * NS_PER_S;
  const lo = toNs / slotNs - BigInt(TRAILING_MINUTES);
  const bucketEnd = (bucketNs + BigInt(stepMs) * 1_000_000n - 1n) / slotNs;
  const hi = bucketEnd > toNs / slotNs ? bucketEnd : toNs / slotNs;
  return { slotLo: lo, slotHi: hi, fromNs: lo * slotNs, seconds: Number(toNs - lo * slotNs) / 1e9 };
}

/** One series' rollup rows in the trailing window, and its newest point before it. */
export interface SeriesInWindow {
  /** The increases of its rows in the window. */
  increase: number;
  /** Its newest point's time in the window. */
  lastNs: bigint;
  /** Its points in the window. */
  points: number;
  /** Its newest point's time in the TRAILING_MINUTES before the window; null when it has none. */
  baseNs: bigint | null;
}

/** Whether a series whose increases span `spanS` over `intervals` gaps still exports: its newest point at most an interval and a tenth old. */
function exporting(spanS: number, intervals: number, sinceS: number): boolean {
  return intervals > 0 && spanS > 0 && sinceS <= 1.1 * (spanS / intervals);
}

/**
 * A series' rate now (per second): its increases over the time they span, from its point
 * before the window to its newest, while it keeps exporting (an interval its points' mean
 * gap), so the phase of now does not move it; to now once it stopped, so it fades; over the
 * window's length without a point before the window (one that began in it, unless its group is
 * read by newGroupRate; one exporting less often than every five minutes, or back from a gap).
 */
export function seriesRate(series: SeriesInWindow, window: TrailingWindow, nowNs: bigint): number {
  if (series.baseNs === null || series.points <= 0) return series.increase / window.seconds;
  const spanS = Number(series.lastNs - series.baseNs) / 1e9;
  const sinceS = Number(nowNs - series.lastNs) / 1e9;
  if (spanS <= 0) return series.increase / window.seconds;
  return series.increase / (exporting(spanS, series.points, sinceS) ? spanS : spanS + sinceS);
}

/** A series whose first point is in the trailing window: it began there. */
export interface FreshSeries extends SeriesInWindow {
  /** Its first point with a value. */
  firstNs: bigint;
  /**
   * When its increases begin: that point's start time when it counts whole (a process started
   * after the collector; a delta point), else that point (the baseline).
   */
  beganNs: bigint;
}

/**
 * When a series that began in the window began counting, from its first point with a value
 * (`firstNs`, `startNs`; null when it has none): null when it did not begin there (its first
 * point is older than the window), when it has no point with a value, or when its first counts
 * whole and its start time is unknown (0: unset) or after it.
 */
export function freshBegan(
  seriesFirstNs: bigint,
  firstWhole: boolean,
  firstNs: bigint | number | null,
  startNs: bigint | number | null,
  window: TrailingWindow,
): Pick<FreshSeries, "firstNs" | "beganNs"> | null {
  if (seriesFirstNs < window.fromNs || firstNs === null) return null;
  const first = BigInt(firstNs);
  if (!firstWhole) return { firstNs: first, beganNs: first };
  if (startNs === null || BigInt(startNs) <= 0n || BigInt(startNs) > first) return null;
  return { firstNs: first, beganNs: BigInt(startNs) };
}

/**
 * The rate now of a group whose series all began in the trailing window and all still export
 * (a service started in the last minutes): each series' increases over its own span, from when
 * it began to its newest point. Null when any does not (it has fewer than two points, so no
 * interval, or its newest is more than an interval and a tenth old), or when the group has a
 * series that began before the window: the group is then read by seriesRate, a series that
 * began in the window over the window's length.
 *
 * Why only then: divided by the window's length, a service started a minute ago read a sixth of
 * its rate until its sixth minute. Divided by their own spans where some stopped, series that
 * follow one another (a process a minute, a coding agent's sessions) read twice their rate: the
 * one running its own rate, those that stopped their increases again as they fade; over the
 * window's length they add up to it, as Prometheus's rate() reads them. Read together over the
 * time since the first began, series that run side by side, one started later, read less than
 * their sum.
 */
export function newGroupRate(series: readonly FreshSeries[], nowNs: bigint): number | null {
  if (series.length === 0) return null;
  let rate = 0;
  for (const one of series) {
    // The interval from the gaps between its points, not from its start, which may be long before.
    const gapsS = Number(one.lastNs - one.firstNs) / 1e9;
    if (!exporting(gapsS, one.points - 1, Number(nowNs - one.lastNs) / 1e9)) return null;
    rate += one.increase / (Number(one.lastNs - one.beganNs) / 1e9);
  }
  return rate;
}
