/**
 * What a metric query should answer, computed from the values a test recorded, independently
 * of obs: explicit-bucket quantiles as Prometheus's histogram_quantile interpolates them, and
 * the exponential bucket (at the scale the OpenTelemetry SDK picks) a quantile must fall in.
 */

/** Counts per OTLP explicit bucket: bucket i holds (bounds[i-1], bounds[i]]; the last is (last bound, +Inf). */
export function explicitBucketCounts(values: readonly number[], bounds: readonly number[]): number[] {
  const counts = new Array<number>(bounds.length + 1).fill(0);
  for (const value of values) {
    const index = bounds.findIndex((bound) => value <= bound);
    counts[index === -1 ? bounds.length : index]! += 1;
  }
  return counts;
}

/**
 * Prometheus's histogram_quantile over explicit buckets: the rank q*count, found in its bucket,
 * linearly interpolated between the bucket's bounds; the first bucket starts at 0 when its
 * bound is positive, and a rank in the +Inf bucket gives the highest finite bound. Given the
 * observations' least and greatest (the min and max the points carry), the bucket is
 * interpolated over its part between them instead: the first one from the min, the +Inf one
 * to the max.
 */
export function histogramQuantile(
  q: number,
  bounds: readonly number[],
  counts: readonly number[],
  range?: { min: number; max: number },
): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i] ?? 0;
    if (below + count >= rank && count > 0 && range !== undefined) {
      const lower = Math.max(i === 0 ? Number.NEGATIVE_INFINITY : (bounds[i - 1] as number), range.min);
      const upper = Math.min(i === bounds.length ? Number.POSITIVE_INFINITY : (bounds[i] as number), range.max);
      return lower + ((upper - lower) * (rank - below)) / count;
    }
    if (below + count >= rank && count > 0) {
      if (i === bounds.length) return bounds[bounds.length - 1] ?? null;
      const upper = bounds[i] as number;
      const lower = i === 0 ? (upper > 0 ? 0 : upper) : (bounds[i - 1] as number);
      if (i === 0 && upper <= 0) return upper;
      return lower + ((upper - lower) * (rank - below)) / count;
    }
    below += count;
  }
  return bounds[bounds.length - 1] ?? null;
}

/** The index of a positive value's exponential bucket at a scale: bucket i holds (base^i, base^(i+1)]. */
export function exponentialIndex(value: number, scale: number): number {
  return Math.ceil(Math.log2(value) * 2 ** scale) - 1;
}

/** The lower and upper bound of an exponential bucket at a scale. */
export function exponentialBounds(index: number, scale: number): [number, number] {
  return [2 ** (index / 2 ** scale), 2 ** ((index + 1) / 2 ** scale)];
}

/**
 * The scale the OpenTelemetry SDK settles on for positive values: the largest (at most 20)
 * at which they span no more than `maxSize` buckets.
 */
export function exponentialScale(values: readonly number[], maxSize = 160): number {
  const low = Math.min(...values);
  const high = Math.max(...values);
  for (let scale = 20; scale > -10; scale--) {
    if (exponentialIndex(high, scale) - exponentialIndex(low, scale) + 1 <= maxSize) return scale;
  }
  return -10;
}

/** The exponential bucket (its bounds) that holds the q-quantile's rank of positive values, at a scale. */
export function exponentialQuantileBucket(q: number, values: readonly number[], scale: number): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return exponentialBounds(exponentialIndex(sorted[rank - 1] as number, scale), scale);
}
