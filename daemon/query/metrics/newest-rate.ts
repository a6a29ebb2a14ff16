/**
 * The newest bucket's rate. A bucket's rate is its increase per second of the step; but the
 * window ends now, so its newest bucket is still open and holds only the increases made so far.
 * Divided by the whole step, a 15-minute bucket one minute old read a fifteenth of the rate.
 *
 * So the newest bucket's rate is read as Prometheus's `rate()` reads a range that ends now: the
 * increase of every series in a trailing window divided by the window's length. The window is
 * whole minutes (the 60 s rollup rows, which every slot has, packed or not, whatever the
 * query's source) from the newest bucket's start, or TRAILING_MINUTES before the current
 * minute when that is earlier, never before the query's first bucket, to now. Its first point's
 * increase reaches back before the window as far as its last point's export falls short of now,
 * on average, so a series that keeps exporting reads its rate whatever the phase of now; one
 * that stopped counts only the increases it made in the window, and fades as they leave it.
 */
import { FOLDED_WIDTHS_S } from "../../store/metric-slots.js";

/** The width of the rows every slot has. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];
const NS_PER_S = 1_000_000_000n;

/**
 * Whole minutes the trailing window reaches back before the current one, at least: five hold
 * several points of a series that exports every minute (the SDKs' default), so one series'
 * phase moves its rate by a fifth at most, and a point of every series that exports at least
 * every five minutes.
 */
export const TRAILING_MINUTES = 5;

/** The trailing window of the newest bucket: its 60 s slots (inclusive) and its length to now, in seconds. */
export interface TrailingWindow {
  slotLo: bigint;
  slotHi: bigint;
  seconds: number;
}

/**
 * The window of a query whose buckets start at `firstNs` (the first) and `bucketNs` (the
 * newest), `stepMs` wide, ending at `toNs` (now). Its last slot is the newest bucket's last
 * minute, as the bucket query reads it, so a point stamped ahead of now counts in both.
 */
export function trailingWindow(firstNs: bigint, bucketNs: bigint, stepMs: number, toNs: bigint): TrailingWindow {
  const slotNs = BigInt(FOLDED_S) * NS_PER_S;
  const min = (a: bigint, b: bigint) => (a < b ? a : b);
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const lo = max(min(toNs / slotNs - BigInt(TRAILING_MINUTES), bucketNs / slotNs), firstNs / slotNs);
  const hi = (bucketNs + BigInt(stepMs) * 1_000_000n - 1n) / slotNs;
  // At least a second: a window that starts exactly now (a minute's first nanosecond) is not empty.
  return { slotLo: lo, slotHi: hi, seconds: Math.max(Number(toNs - lo * slotNs) / 1e9, 1) };
}
