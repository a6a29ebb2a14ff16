/**
 * Explicit-bound histogram bucket arithmetic shared by the rollups (metric-rollup.ts) and the
 * raw-points query path (query/metrics/histogram-buckets.ts), so both merge buckets under other
 * bounds the same way and a query answers the same from either.
 */

/** Explicit-bound buckets: counts.length = bounds.length + 1, the last one up to +Inf. */
export interface ExplicitCounts {
  bounds: number[];
  counts: number[];
}

function upperIndex(bounds: readonly number[], upper: number): number {
  const i = bounds.findIndex((b) => upper <= b);
  return i === -1 ? bounds.length : i;
}

/**
 * Adds `more`'s counts into `into` (changed in place). Under the same bounds bucket by bucket;
 * under other bounds (the instrument's boundaries changed) each of `more`'s buckets goes to
 * the bucket of `into` holding its upper bound, which keeps the total exact and quantiles close.
 */
export function addExplicitInto(into: ExplicitCounts, more: ExplicitCounts): void {
  const same = into.bounds.length === more.bounds.length && into.bounds.every((b, i) => b === more.bounds[i]);
  more.counts.forEach((count, i) => {
    const target = same ? i : upperIndex(into.bounds, more.bounds[i] ?? Number.POSITIVE_INFINITY);
    into.counts[target] = (into.counts[target] ?? 0) + count;
  });
}
