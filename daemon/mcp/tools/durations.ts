/** Durations as the tools show them: milliseconds, rounded to the microsecond. Pure. */

/** `ms` rounded to the microsecond. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Milliseconds from integer nanoseconds, to the microsecond. */
export function msOfNs(ns: number): number {
  return roundMs(ns / 1e6);
}

/** Milliseconds between two nanosecond instants (as the API's decimal text), to the microsecond. */
export function msBetween(fromNs: string | bigint, toNs: string | bigint): number {
  return roundMs(Number(BigInt(toNs) - BigInt(fromNs)) / 1e6);
}
