/**
 * Log-bucketed duration histograms (the DDSketch layout): bucket i holds durations in
 * (MIN_NS·γ^(i-1), MIN_NS·γ^i], so a quantile read from the buckets is within 1% of a real
 * sample. They merge by adding counts, which is what lets the store keep one per time slot and
 * answer a window of hours from a few thousand rows instead of every span.
 */

import { pushVarint, VarintReader } from "./varint.js";

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

/**
 * Stored form (schema version 21): per bucket in ascending order, the varint of its distance
 * from the bucket before less 1 (the first's from -1), then the varint of its count. Neighbouring
 * buckets are 2% apart, so most distances and counts take a byte each.
 */
export function encodeBuckets(buckets: DurationBuckets): Buffer {
  // A typed array sorts numerically without a comparator: encoding runs on every commit.
  const sorted = Uint32Array.from(buckets.keys()).sort();
  const out: number[] = [];
  let previous = -1;
  for (const bucket of sorted) {
    pushVarint(out, bucket - previous - 1);
    pushVarint(out, buckets.get(bucket) as number);
    previous = bucket;
  }
  return Buffer.from(out);
}

/** Adds an encoded histogram's counts into `into`. */
export function mergeEncoded(into: DurationBuckets, encoded: Uint8Array): void {
  const reader = new VarintReader(encoded);
  let bucket = -1;
  while (!reader.done) {
    bucket += reader.varint() + 1;
    const count = reader.varint();
    into.set(bucket, (into.get(bucket) ?? 0) + count);
  }
}
