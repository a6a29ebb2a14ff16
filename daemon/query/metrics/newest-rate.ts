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
 * window, to 0. Series that began in the window are read together, per group (freshRate): over
 * the time since the first of them began, so a process started a minute ago reads its rate and
 * not a sixth of it, while many short-lived processes, each a series, add up to their real rate.
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
 * window's length without a point before the window (a series that began in the window is read
 * by freshRate instead; one without a point in the five minutes before it, exporting less
 * often or back from a gap, by this).
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
  /**
   * When its increases begin: its first point's start time when that point counts whole (a
   * process started after the collector; a delta point), else its first point (the baseline).
   */
  beganNs: bigint;
  /** Whether its first point counts whole: then it is one of the increases. */
  firstWhole: boolean;
}

/**
 * When a series that began in the window began counting: null when it did not begin there (its
 * first point is older), or its first point counts whole and its start time is unknown (not
 * stored, or 0: unset), so that it is read as a series without a point before the window.
 */
export function freshBegan(
  firstNs: bigint,
  firstWhole: boolean,
  startNs: bigint | number | null,
  window: TrailingWindow,
): Pick<FreshSeries, "beganNs" | "firstWhole"> | null {
  if (firstNs < window.fromNs) return null;
  if (!firstWhole) return { beganNs: firstNs, firstWhole };
  if (startNs === null || BigInt(startNs) <= 0n || BigInt(startNs) > firstNs) return null;
  return { beganNs: BigInt(startNs), firstWhole };
}

/**
 * The rate now of a group's series that began in the trailing window, together: their
 * increases over the time since the first of them began (at most the window: the series of
 * processes that each ran for longer and exported once, at their end, began long before it, and
 * their sum over the window is their rate), to the newest point of those still exporting, to
 * now for those that stopped.
 *
 * Read together because the series of short-lived processes (a CLI run, each a series that
 * exports once) overlap: each divided by its own span, the one running now read the group's
 * whole rate and those that stopped added theirs again. Divided by the window's length, as
 * series without a point before the window were, a process started a minute ago read a sixth
 * of its rate until its sixth minute.
 */
export function freshRate(fresh: readonly FreshSeries[], window: TrailingWindow, nowNs: bigint): number {
  if (fresh.length === 0) return 0;
  let beganNs = fresh[0]?.beganNs as bigint;
  for (const series of fresh) if (series.beganNs < beganNs) beganNs = series.beganNs;
  if (beganNs < window.fromNs) beganNs = window.fromNs;
  let exportingTo: bigint | null = null;
  const live = fresh.map((series) => {
    const spanS = Number(series.lastNs - series.beganNs) / 1e9;
    const intervals = series.firstWhole ? series.points : series.points - 1;
    const alive = exporting(spanS, intervals, Number(nowNs - series.lastNs) / 1e9);
    if (alive && (exportingTo === null || series.lastNs > exportingTo)) exportingTo = series.lastNs;
    return alive;
  });
  // At least a second: points stamped ahead of the collector's clock may begin after now.
  const toNow = Math.max(1, Number(nowNs - beganNs) / 1e9);
  const toNewest = exportingTo === null ? toNow : Math.max(1, Number((exportingTo as bigint) - beganNs) / 1e9);
  let rate = 0;
  fresh.forEach((series, i) => {
    rate += series.increase / (live[i] ? toNewest : toNow);
  });
  return rate;
}
