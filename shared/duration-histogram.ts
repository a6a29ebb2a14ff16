/**
 * Log-bucketed duration histograms (the DDSketch layout): bucket i holds durations in
 * (MIN_NS·γ^(i-1), MIN_NS·γ^i], so a quantile read from the buckets is within 1% of a real
 * sample. They merge by adding counts, which is what lets the store keep one per time slot and
 * answer a window of hours from a few thousand rows instead of every span.
 */

/** Bucket width ratio: 2% apart, reported at the bucket's centre, so within 1% either way. */
const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Durations up to one microsecond share bucket 0. */
const MIN_NS = 1000;

/** bucket index → number of durations in it. */
export type DurationBuckets = Map<number, number>;

export function bucketOf(durationNs: number): number {
  return durationNs <= MIN_NS ? 0 : Math.ceil(Math.log(durationNs / MIN_NS) / LOG_GAMMA);
}

/** The value a bucket stands for, in milliseconds: its centre (1 µs for bucket 0). */
export function bucketValueMs(bucket: number): number {
  if (bucket <= 0) return MIN_NS / 1e6;
  return ((2 * GAMMA ** bucket) / (GAMMA + 1)) * (MIN_NS / 1e6);
}

export function addDuration(buckets: DurationBuckets, durationNs: number, count = 1): void {
  const bucket = bucketOf(durationNs);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + count);
}

export function mergeBuckets(into: DurationBuckets, from: DurationBuckets): void {
  for (const [bucket, count] of from) into.set(bucket, (into.get(bucket) ?? 0) + count);
}

export function bucketsOfMs(durationsMs: readonly number[]): DurationBuckets {
  const buckets: DurationBuckets = new Map();
  for (const durationMs of durationsMs) addDuration(buckets, Math.round(durationMs * 1e6));
  return buckets;
}

export function totalCount(buckets: DurationBuckets): number {
  let total = 0;
  for (const count of buckets.values()) total += count;
  return total;
}

/** The p-th percentile by nearest rank over the buckets, in milliseconds (0 when empty). */
export function quantileMs(buckets: DurationBuckets, p: number): number {
  const total = totalCount(buckets);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const bucket of [...buckets.keys()].sort((a, b) => a - b)) {
    seen += buckets.get(bucket) as number;
    if (seen >= rank) return bucketValueMs(bucket);
  }
  return 0;
}

/** Typed arrays are in platform byte order; the stored form is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Stored form: (bucket, count) as little-endian uint32 pairs in ascending bucket order. */
export function encodeBuckets(buckets: DurationBuckets): Buffer {
  // A typed array sorts numerically without a comparator: encoding runs on every commit.
  const sorted = Uint32Array.from(buckets.keys()).sort();
  const pairs = new Uint32Array(sorted.length * 2);
  for (let i = 0; i < sorted.length; i++) {
    const bucket = sorted[i] as number;
    pairs[2 * i] = bucket;
    pairs[2 * i + 1] = buckets.get(bucket) as number;
  }
  const bytes = Buffer.from(pairs.buffer, pairs.byteOffset, pairs.byteLength);
  if (!LITTLE_ENDIAN) bytes.swap32();
  return bytes;
}

/** Adds an encoded histogram's counts into `into`. */
export function mergeEncoded(into: DurationBuckets, encoded: Uint8Array): void {
  // Copied so the pairs are aligned for a typed-array view (SQLite's blobs need not be).
  const pairs = new Uint32Array((encoded.byteLength >>> 3) << 1);
  new Uint8Array(pairs.buffer).set(encoded.subarray(0, pairs.byteLength));
  if (!LITTLE_ENDIAN) Buffer.from(pairs.buffer).swap32();
  for (let i = 0; i < pairs.length; i += 2) {
    const bucket = pairs[i] as number;
    into.set(bucket, (into.get(bucket) ?? 0) + (pairs[i + 1] as number));
  }
}
