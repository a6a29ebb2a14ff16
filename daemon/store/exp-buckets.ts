import type { ExpBuckets } from "../otlp/records.js";

/**
 * Exponential histogram bucket arithmetic. A bucket's index at scale s covers
 * (base^i, base^(i+1)] with base = 2^(2^-s); lowering the scale by d merges each run of 2^d
 * buckets into one, index i becoming floor(i / 2^d).
 */

/**
 * The most buckets a merged side spans: the OpenTelemetry SDKs' default maximum size. Past it a
 * merge lowers the scale further, as an SDK does when a value widens its range. Without it the
 * dense counts of a merge grow with the distance between the indexes, not with the data: two
 * points at scale 20 holding 1e-30 and 1e30 are 2^28 indexes apart, an array no heap holds.
 */
export const MAX_MERGED_BUCKETS = 160;

/** Both sides of an exponential histogram at one scale (its zero bucket is the caller's). */
export interface ScaledSides {
  scale: number;
  positive: ExpBuckets;
  negative: ExpBuckets;
}

/** Index `index` lowered `shift` scales (a division, not `>>`: indexes and shifts may pass 32 bits). */
function lowered(index: number, shift: number): number {
  return shift === 0 ? index : Math.floor(index / 2 ** shift);
}

/** Bucket counts by index, lowered `shift` scales. */
export function bucketMap(buckets: ExpBuckets, shift: number, into = new Map<number, number>()): Map<number, number> {
  buckets.bucketCounts.forEach((count, k) => {
    if (count === 0) return;
    const index = lowered(buckets.offset + k, shift);
    into.set(index, (into.get(index) ?? 0) + count);
  });
  return into;
}

/** The lowest and highest index of counts by index; null when there are none. */
function indexRange(byIndex: Map<number, number>): [number, number] | null {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const index of byIndex.keys()) {
    if (index < low) low = index;
    if (index > high) high = index;
  }
  return byIndex.size === 0 ? null : [low, high];
}

/** The fewest scales to lower counts by index so that they span at most `most` buckets. */
function shiftToFit(byIndex: Map<number, number>, most: number): number {
  const range = indexRange(byIndex);
  if (range === null) return 0;
  let shift = 0;
  while (lowered(range[1], shift) - lowered(range[0], shift) + 1 > most) shift++;
  return shift;
}

/** Dense buckets from counts by index, lowered `shift` scales (offset 0 and no counts when empty). */
export function denseBuckets(byIndex: Map<number, number>, shift = 0): ExpBuckets {
  const source = shift === 0 ? byIndex : new Map<number, number>();
  if (shift !== 0) {
    for (const [index, count] of byIndex) {
      const to = lowered(index, shift);
      source.set(to, (source.get(to) ?? 0) + count);
    }
  }
  const range = indexRange(source);
  if (range === null) return { offset: 0, bucketCounts: [] };
  const [low, high] = range;
  const bucketCounts = new Array<number>(high - low + 1).fill(0);
  for (const [index, count] of source) bucketCounts[index - low] = count;
  return { offset: low, bucketCounts };
}

/**
 * `later - earlier` per bucket, never below zero, at the lower of their scales (`scaleLater`,
 * `scaleEarlier`): an SDK lowers a cumulative histogram's scale when a value widens its range and
 * its counts carry on, so the earlier point's buckets are merged to the new scale and subtracted.
 * The increase spans no more buckets than `later` does.
 */
export function bucketIncrease(
  later: ExpBuckets,
  scaleLater: number,
  earlier: ExpBuckets,
  scaleEarlier: number,
): ExpBuckets {
  const scale = Math.min(scaleLater, scaleEarlier);
  const before = bucketMap(earlier, scaleEarlier - scale);
  const after = bucketMap(later, scaleLater - scale);
  const out = new Map<number, number>();
  for (const [index, count] of after) {
    const increase = count - (before.get(index) ?? 0);
    if (increase > 0) out.set(index, increase);
  }
  return denseBuckets(out);
}

/**
 * The sum of two histograms' buckets, at the lower of their scales, or lower still where a side
 * would span more than MAX_MERGED_BUCKETS (both sides share the scale). Every count is kept.
 */
export function addSides(a: ScaledSides, b: ScaledSides): ScaledSides {
  const scale = Math.min(a.scale, b.scale);
  const positive = bucketMap(b.positive, b.scale - scale, bucketMap(a.positive, a.scale - scale));
  const negative = bucketMap(b.negative, b.scale - scale, bucketMap(a.negative, a.scale - scale));
  const shift = Math.max(shiftToFit(positive, MAX_MERGED_BUCKETS), shiftToFit(negative, MAX_MERGED_BUCKETS));
  return { scale: scale - shift, positive: denseBuckets(positive, shift), negative: denseBuckets(negative, shift) };
}
