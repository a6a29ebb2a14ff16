/**
 * Histogram buckets as the rollups store their increases (metric_rollups.buckets), merged
 * across series and slots, and their quantiles. Pure.
 */
import { addSides } from "../../store/exp-buckets.js";
import { addExplicitInto, boundAt } from "../../store/explicit-buckets.js";

/** Explicit-bound buckets: counts.length = bounds.length + 1, the last one up to +Inf. */
export interface ExplicitBuckets {
  bounds: number[];
  counts: number[];
}

export interface ExponentialSide {
  offset: number;
  bucketCounts: number[];
}

/** Base-2 exponential buckets: bucket i covers (base^i, base^(i+1)], base = 2^(2^-scale). */
export interface ExponentialBuckets {
  scale: number;
  zeroCount: number;
  positive: ExponentialSide;
  negative: ExponentialSide;
}

/**
 * Adds `more` into `into`: under other bounds, under both together, each bucket at its own
 * upper bound, as the rollups merge a slot's (explicit-buckets.ts).
 */
export function addExplicit(into: ExplicitBuckets | null, more: ExplicitBuckets): ExplicitBuckets {
  if (into === null) return { bounds: [...more.bounds], counts: [...more.counts] };
  addExplicitInto(into, more);
  return into;
}

/**
 * Where every observation lies, when the points recorded it (their min and max): a bucket is
 * interpolated over its part within it only. An SDK's default bounds are made for
 * milliseconds; under a histogram in seconds every observation falls in (0, 5], and
 * interpolated over the whole bucket and then held at the max, the median read the max.
 */
export interface ObservedRange {
  min: number;
  max: number;
}

/** `lower` and `upper` narrowed to `range`, or null when the range leaves nothing of them. */
function narrowed(lower: number, upper: number, range: ObservedRange | null): [number, number] | null {
  if (range === null) return [lower, upper];
  const from = Math.max(lower, range.min);
  const to = Math.min(upper, range.max);
  return from <= to ? [from, to] : null;
}

/**
 * The q-quantile of explicit buckets, as Prometheus's histogram_quantile computes it: the
 * bucket holding rank q * total, interpolated linearly within it; the lowest bucket starts at
 * 0 (or is answered by its bound when that is not positive); a rank in the +Inf bucket answers
 * the highest finite bound. With the observations' `range`, the bucket is its part within the
 * range: the lowest starts at the min, the +Inf one ends at the max. Null without observations.
 */
export function explicitQuantile(
  q: number,
  buckets: ExplicitBuckets,
  range: ObservedRange | null = null,
): number | null {
  const { bounds, counts } = buckets;
  const total = counts.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return null;
  // The highest finite bound: what a rank past the finite buckets answers. An infinite bound
  // comes back from JSON as null (boundAt).
  let highest: number | null = null;
  for (let i = bounds.length - 1; i >= 0 && highest === null; i--) {
    const bound = boundAt(bounds, i);
    if (Number.isFinite(bound)) highest = bound;
  }
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i] ?? 0;
    if (below + count >= rank && count > 0) {
      const fraction = (rank - below) / count;
      const upper = boundAt(bounds, i);
      const lower = i === 0 ? Number.NEGATIVE_INFINITY : boundAt(bounds, i - 1);
      const within = narrowed(lower, upper, range);
      if (range !== null && within !== null) return within[0] + (within[1] - within[0]) * fraction;
      if (upper === Number.POSITIVE_INFINITY) return highest;
      // The lowest bucket starts at 0, or is answered by its bound when that is not positive.
      if (lower === Number.NEGATIVE_INFINITY) {
        if (upper <= 0) return upper;
        return upper * fraction;
      }
      return lower + (upper - lower) * fraction;
    }
    below += count;
  }
  return highest;
}

/**
 * Sums exponential buckets, at the lowest scale among them (a lower scale's buckets hold whole
 * higher ones), or lower where a side would span more than MAX_MERGED_BUCKETS (exp-buckets.ts).
 */
export function addExponential(into: ExponentialBuckets | null, more: ExponentialBuckets): ExponentialBuckets {
  if (into === null) {
    return {
      scale: more.scale,
      zeroCount: more.zeroCount,
      positive: { offset: more.positive.offset, bucketCounts: [...more.positive.bucketCounts] },
      negative: { offset: more.negative.offset, bucketCounts: [...more.negative.bucketCounts] },
    };
  }
  const { scale, positive, negative } = addSides(into, more);
  return { scale, zeroCount: into.zeroCount + more.zeroCount, positive, negative };
}

/** 2^exponent, at most the largest double. */
function magnitude(exponent: number): number {
  return Math.min(2 ** exponent, Number.MAX_VALUE);
}

/**
 * The q-quantile of exponential buckets at their own scale: the bucket holding rank q * total,
 * interpolated exponentially within it (lower * (upper / lower)^fraction, the buckets' own
 * geometry, as Prometheus does for native histograms). Negative buckets mirror the positive
 * ones; the zero bucket answers 0. With the observations' `range`, a bucket is its part within
 * the range, as for explicit buckets. Null without observations.
 */
export function exponentialQuantile(
  q: number,
  buckets: ExponentialBuckets,
  range: ObservedRange | null = null,
): number | null {
  // Bounds are kept as base-2 exponents of the magnitude and turned into values only at the
  // end: at the lowest scales the base itself (2^(2^10) at scale -10) overflows a double, so
  // base^i would read 1 or Infinity and interpolate to NaN. A value past the largest double
  // is that double; below the smallest, 0.
  const width = 2 ** -buckets.scale;
  // Ascending order of value: negative buckets from the largest magnitude, zero, positive.
  // `from` and `to` are the exponents at the bucket's lower and upper end in that order.
  const ordered: { count: number; sign: 1 | -1 | 0; from: number; to: number }[] = [];
  const neg = buckets.negative;
  for (let k = neg.bucketCounts.length - 1; k >= 0; k--) {
    const i = neg.offset + k;
    ordered.push({ count: neg.bucketCounts[k] ?? 0, sign: -1, from: (i + 1) * width, to: i * width });
  }
  ordered.push({ count: buckets.zeroCount, sign: 0, from: 0, to: 0 });
  buckets.positive.bucketCounts.forEach((count, k) => {
    const i = buckets.positive.offset + k;
    ordered.push({ count, sign: 1, from: i * width, to: (i + 1) * width });
  });
  const total = ordered.reduce((a, b) => a + b.count, 0);
  if (!(total > 0)) return null;
  const rank = q * total;
  let below = 0;
  for (const bucket of ordered) {
    if (bucket.count > 0 && below + bucket.count >= rank) {
      if (bucket.sign === 0) return 0;
      const fraction = (rank - below) / bucket.count;
      const { sign } = bucket;
      let { from, to } = bucket;
      // Narrowed, a bucket keeps its sign: a positive one's bounds stay above 0, a negative
      // one's below (the zero bucket lies between the sides).
      const lower = sign * magnitude(from);
      const upper = sign * magnitude(to);
      const part = narrowed(lower, upper, range);
      if (part !== null) {
        if (part[0] !== lower) from = Math.log2(Math.abs(part[0]));
        if (part[1] !== upper) to = Math.log2(Math.abs(part[1]));
      }
      return sign * magnitude(from + (to - from) * fraction);
    }
    below += bucket.count;
  }
  return null;
}
