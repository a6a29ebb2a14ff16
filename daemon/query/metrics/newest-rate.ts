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
 * divided by the window's length.
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

/**
 * A series' rate now (per second): its increases over the time they span, from its point
 * before the window to its newest, while it keeps exporting (its newest point at most an
 * interval and a tenth before now, an interval its points' mean gap), so the phase of now does
 * not move it; to now once it stopped, so it fades; over the window's length without a point
 * before the window.
 */
export function seriesRate(series: SeriesInWindow, window: TrailingWindow, nowNs: bigint): number {
  if (series.baseNs === null || series.points <= 0) return series.increase / window.seconds;
  const spanS = Number(series.lastNs - series.baseNs) / 1e9;
  const sinceS = Number(nowNs - series.lastNs) / 1e9;
  if (spanS <= 0) return series.increase / window.seconds;
  const exporting = sinceS <= 1.1 * (spanS / series.points);
  return series.increase / (exporting ? spanS : spanS + sinceS);
}
