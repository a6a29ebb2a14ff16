/**
 * Per-group trace aggregates, accumulated row by row inside one SQLite scan (registered as the
 * aggregate function `obs_trace_groups`). Grouping here rather than with SQL's GROUP BY avoids
 * sorting every row, and keeps rows from ever being materialized in JavaScript; it measured
 * several times faster than SQL window functions (docs/perf-history/design-decisions.md).
 */
import type { StatsRow, TraceAgg } from "./telemetry-reader.js";

interface Group {
  count: number;
  sumNs: number;
  errors: number;
  durationsNs: number[];
}

/** By group key: text, or a number the caller names afterwards (a span name's id). */
export type TraceGroups = Map<string | number | null, Group>;

export function newTraceGroups(): TraceGroups {
  return new Map();
}

export function addTrace(
  groups: TraceGroups,
  key: string | number | null,
  durationNs: number,
  errorCount: number,
): TraceGroups {
  let group = groups.get(key);
  if (!group) {
    group = { count: 0, sumNs: 0, errors: 0, durationsNs: [] };
    groups.set(key, group);
  }
  group.count++;
  group.sumNs += durationNs;
  if (errorCount > 0) group.errors++;
  group.durationsNs.push(durationNs);
  return groups;
}

/** Nearest rank: the smallest value with at least p% of the values at or below it. */
export function nearestRank(values: number[], p: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** A group's finished figures: what the SQL aggregate hands back (as JSON) at the end of the scan. */
export interface GroupFigures<Key = string | null> {
  group: Key;
  count: number;
  sumNs: number;
  errors: number;
  p95Ns: number;
}

export function finishTraceGroups(groups: TraceGroups): GroupFigures<string | number | null>[] {
  return [...groups].map(([group, g]) => ({
    group,
    count: g.count,
    sumNs: g.sumNs,
    errors: g.errors,
    p95Ns: nearestRank(g.durationsNs, 95),
  }));
}

function compareGroups(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** One row per group, ordered by value (largest first), then group (null first). */
export function traceGroupRows(figures: GroupFigures[], agg: TraceAgg): StatsRow[] {
  const rows = figures.map((g) => ({
    group: g.group,
    value:
      agg === "count"
        ? g.count
        : agg === "avg_duration"
          ? g.sumNs / g.count / 1e6
          : agg === "error_rate"
            ? g.errors / g.count
            : g.p95Ns / 1e6,
    count: g.count,
  }));
  return rows.sort((a, b) => b.value - a.value || compareGroups(a.group, b.group));
}
