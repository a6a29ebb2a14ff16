/**
 * Nanosecond timestamps exceed 2^53, so they stay BigInt end to end and are
 * formatted without ever passing through a float.
 */

const NS_PER_MS = 1_000_000n;

export function nowNs(): bigint {
  return BigInt(Date.now()) * NS_PER_MS;
}

export function msToNs(ms: number): bigint {
  return BigInt(Math.trunc(ms)) * NS_PER_MS;
}

/** `1544712660000000001n` -> `2018-12-13T14:51:00.000000001Z` (always nine fraction digits). */
export function nsToIso(ns: bigint): string {
  let ms = ns / NS_PER_MS;
  let rest = ns % NS_PER_MS;
  if (rest < 0n) {
    ms -= 1n;
    rest += NS_PER_MS;
  }
  const base = new Date(Number(ms)).toISOString(); // yyyy-mm-ddThh:mm:ss.mmmZ
  return `${base.slice(0, -1)}${rest.toString().padStart(6, "0")}Z`;
}

/**
 * The least whole nanoseconds at or above `ms` milliseconds, as a decimal reads: 2.007 ms is
 * 2,007,000 ns, where `2.007 * 1e6` is 2007000.0000000002 in floating point and its ceiling one
 * nanosecond too many (a trace of exactly 2.007 ms would miss `durationMin=2.007`). Fifteen
 * significant digits are what a double holds of a decimal exactly.
 */
export function msToNsAtLeast(ms: number): bigint {
  return BigInt(Math.ceil(Number((ms * 1e6).toPrecision(15))));
}

/**
 * Nanosecond duration to milliseconds, as exact as a double holds it (the nearest double to
 * the decimal: 2,007,000 ns is 2.007): a trace summary's duration reads as its root's in the
 * tree, where it was cut to whole microseconds (1,500 ns read 0.001 ms, its tree node 0.0015).
 */
export function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}
