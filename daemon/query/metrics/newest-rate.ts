/**
 * The newest bucket's rate. A bucket's rate is its increase per second of the step; but the
 * window ends now, so its newest bucket is still open and holds only the increases made so far.
 * Divided by the whole step, a 15-minute bucket one minute old read a fifteenth of the rate.
 *
 * So the newest bucket reads the rate now, as Prometheus's `rate(...[5m])` reads it at the end
 * of a range: the increase of every series in a trailing window (the five whole minutes before
 * the current one and the current one so far, from the 60 s rollup rows, which every slot has,
 * packed or not, whatever the query's source) divided by the window's length. A series that
 * keeps exporting reads its rate whatever the phase of now: its first increase in the window
 * reaches back before it about as far as its newest export falls short of now. One that stopped
 * counts only the increases it made in the window, fading as they leave it, to 0.
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
 * series that exports every minute (the SDKs' default), so its phase moves its rate by a fifth
 * at most, and a point of every series that exports at least every five minutes.
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
