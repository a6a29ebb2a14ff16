import { PayloadError } from "./payload-error.js";
import type { WireCodec } from "./wire-codec.js";

/**
 * The latest nanosecond time the store can keep: SQLite integers are signed 64-bit, so OTLP's
 * unsigned timestamps end at 2^63 - 1 ns, 2262-04-11T23:47:16.854775807Z.
 */
export const MAX_STORED_NS = 2n ** 63n - 1n;

/** A record's timestamp: OTLP's unsigned 64-bit nanoseconds, refused (400) past what the store keeps. */
export function storedTime(codec: WireCodec, value: unknown, path: string): bigint {
  const ns = codec.uint64(value, path);
  if (ns > MAX_STORED_NS) throw new PayloadError(`${path}: ${tooLate(ns)}`);
  return ns;
}

/** Why a time past MAX_STORED_NS is refused. */
export function tooLate(ns: bigint): string {
  return `${ns} ns is after 2262-04-11T23:47:16.854775807Z, the latest time obs can store`;
}
