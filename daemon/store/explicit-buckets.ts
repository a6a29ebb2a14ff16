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

/**
 * Adds `more`'s counts into `into` (changed in place). Under the same bounds bucket by bucket;
 * under other bounds (the instrument's boundaries changed, or series of one name measure in
 * other buckets) the bounds become both sets together, and every bucket of either is counted in
 * the one ending at its own upper bound. The total stays exact, each count keeps its upper
 * bound, and the result is the same whatever order buckets are added in: a group's quantile
 * does not depend on which of its series is older, nor on whether the rollups or the points
 * answer it.
 */
export function addExplicitInto(into: ExplicitCounts, more: ExplicitCounts): void {
  const same = into.bounds.length === more.bounds.length && into.bounds.every((b, i) => b === more.bounds[i]);
  if (same) {
    more.counts.forEach((count, i) => {
      into.counts[i] = (into.counts[i] ?? 0) + count;
    });
    return;
  }
  const bounds = [...new Set([...into.bounds, ...more.bounds])].sort((a, b) => a - b);
  const counts = new Array<number>(bounds.length + 1).fill(0);
  // A bucket's upper bound is one of the merged bounds (or +Inf, the last bucket).
  const at = (upper: number | undefined) => (upper === undefined ? bounds.length : bounds.indexOf(upper));
  for (const side of [into, more]) {
    side.counts.forEach((count, i) => {
      const target = at(side.bounds[i]);
      counts[target] = (counts[target] as number) + count;
    });
  }
  into.bounds = bounds;
  into.counts = counts;
}
