import type { ExpBuckets } from "../otlp/records.js";

/**
 * Exponential histogram bucket arithmetic. A bucket's index at scale s covers
 * (base^i, base^(i+1)] with base = 2^(2^-s); lowering the scale by d merges each run of 2^d
 * buckets into one, index i becoming i >> d (floor, for negative indexes too).
 */

/** Bucket counts by index, lowered `shift` scales. */
export function bucketMap(buckets: ExpBuckets, shift: number, into = new Map<number, number>()): Map<number, number> {
  buckets.bucketCounts.forEach((count, k) => {
    if (count === 0) return;
    const index = (buckets.offset + k) >> shift;
    into.set(index, (into.get(index) ?? 0) + count);
  });
  return into;
}

/** Dense buckets from counts by index (offset 0 and no counts when empty). */
export function denseBuckets(byIndex: Map<number, number>): ExpBuckets {
  if (byIndex.size === 0) return { offset: 0, bucketCounts: [] };
  const indexes = [...byIndex.keys()];
  const low = Math.min(...indexes);
  const high = Math.max(...indexes);
  const bucketCounts = new Array<number>(high - low + 1).fill(0);
  for (const [index, count] of byIndex) bucketCounts[index - low] = count;
  return { offset: low, bucketCounts };
}

/**
 * `later - earlier` per bucket, never below zero, at the lower of their scales (`scaleLater`,
 * `scaleEarlier`): an SDK lowers a cumulative histogram's scale when a value widens its range and
 * its counts carry on, so the earlier point's buckets are merged to the new scale and subtracted.
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

/** The sum of two sides' buckets, at scales `scaleA` and `scaleB`, at the lower of the two. */
export function addBuckets(a: ExpBuckets, scaleA: number, b: ExpBuckets, scaleB: number): ExpBuckets {
  const scale = Math.min(scaleA, scaleB);
  const sum = bucketMap(a, scaleA - scale);
  bucketMap(b, scaleB - scale, sum);
  return denseBuckets(sum);
}
