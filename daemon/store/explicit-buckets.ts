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
 * A bucket's upper bound, as a number: JSON keeps an infinite bound as null, which as the first
 * of several bounds is -Infinity and anywhere else +Infinity (bounds ascend). Past the bounds,
 * the last bucket's: +Infinity.
 */
export function boundAt(bounds: readonly (number | null)[], i: number): number {
  const bound = bounds[i];
  if (typeof bound === "number") return bound;
  return i === 0 && bounds.length > 1 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
}

const total = (counts: readonly number[]): number => counts.reduce((sum, count) => sum + count, 0);

/**
 * Adds `more`'s counts into `into` (changed in place). Under the same bounds bucket by bucket;
 * under other bounds (the instrument's boundaries changed, or series of one name measure in
 * other buckets) the bounds become both sets together, and every bucket of either is counted in
 * the one ending at its own upper bound. The total stays exact, each count keeps its upper
 * bound, and the result is the same whatever order buckets are added in: a group's quantile
 * does not depend on which of its series is older, nor on whether the rollups or the points
 * answer it. Buckets without observations add no bounds (an idle series' finer buckets would
 * otherwise move a busy one's quantile within its own).
 */
export function addExplicitInto(into: ExplicitCounts, more: ExplicitCounts): void {
  const same = into.bounds.length === more.bounds.length && into.bounds.every((b, i) => b === more.bounds[i]);
  if (same) {
    more.counts.forEach((count, i) => {
      into.counts[i] = (into.counts[i] ?? 0) + count;
    });
    return;
  }
  if (total(more.counts) === 0) return;
  if (total(into.counts) === 0) {
    into.bounds = [...more.bounds];
    into.counts = [...more.counts];
    return;
  }
  // Once a group's buckets were merged under two layouts, most buckets added are under some of
  // their bounds: added in place, with no union to build.
  if (addUnderSome(into, more)) return;
  // Both bound lists ascend: one walk gives their union, and where each side's buckets go.
  const a = into.bounds.map((_, i) => boundAt(into.bounds, i));
  const b = more.bounds.map((_, i) => boundAt(more.bounds, i));
  const bounds: number[] = [];
  const aAt: number[] = [];
  const bAt: number[] = [];
  for (let i = 0, j = 0; i < a.length || j < b.length; ) {
    const x = i < a.length ? (a[i] as number) : Number.NaN;
    const y = j < b.length ? (b[j] as number) : Number.NaN;
    const next = j >= b.length || x <= y ? x : y;
    if (i < a.length && x === next) aAt[i++] = bounds.length;
    if (j < b.length && y === next) bAt[j++] = bounds.length;
    bounds.push(next);
  }
  const counts = new Array<number>(bounds.length + 1).fill(0);
  const place = (side: readonly number[], at: readonly number[]) =>
    side.forEach((count, i) => {
      const target = at[i] ?? bounds.length;
      counts[target] = (counts[target] as number) + count;
    });
  place(into.counts, aAt);
  place(more.counts, bAt);
  into.bounds = bounds;
  into.counts = counts;
}

/** Adds `more` into `into` in place when each of `more`'s bounds is one of `into`'s; false (nothing added) when not. */
function addUnderSome(into: ExplicitCounts, more: ExplicitCounts): boolean {
  const under = (add: boolean): boolean => {
    let i = 0;
    for (let j = 0; j < more.bounds.length; j++) {
      const bound = boundAt(more.bounds, j);
      while (i < into.bounds.length && boundAt(into.bounds, i) < bound) i++;
      if (i === into.bounds.length || boundAt(into.bounds, i) !== bound) return false;
      if (add) into.counts[i] = (into.counts[i] ?? 0) + (more.counts[j] ?? 0);
    }
    if (add)
      into.counts[into.bounds.length] = (into.counts[into.bounds.length] ?? 0) + (more.counts[more.bounds.length] ?? 0);
    return true;
  };
  return under(false) && under(true);
}
