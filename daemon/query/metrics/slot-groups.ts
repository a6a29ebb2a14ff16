/**
 * The fast path of a bucketed query whose step is its rollup width (a day at 15 minutes, an hour
 * at one minute: the defaults): one bucket per slot, so SQLite groups by the slot itself, in the
 * primary key's order, without sorting, and an aggregate keeps each group's figures per slot.
 * A GROUP BY (group, bucket) sorts every row first, which costs more than reading them.
 */
import type Database from "better-sqlite3";
import {
  type PackColumn,
  packColumnName,
  packedFloats,
  packedTexts,
  packedTimes,
} from "../../store/metric-slot-packs.js";
import type { MetricBucketQuery } from "../telemetry-reader.js";
import type { GroupExemplars } from "./group-exemplars.js";
import { aggFamily, quantileOf } from "./metric-aggs.js";
import type { SeriesGroups } from "./metric-sql-functions.js";
import { addRareExemplars, addRowExemplars, RARE_ARG, rareParts } from "./slot-exemplars.js";

type AggregateOptions = Parameters<Database.Database["aggregate"]>[1];

/** How a group's rows combine: `ratio` is sum(a) / sum(b) (null when sum(b) is 0). */
export type SlotMode = "sum" | "ratio" | "min" | "max";

/** The rollup columns (metric_rollups names) and mode an agg reads on this path; null when it needs the general one. */
export function slotPlan(
  query: MetricBucketQuery,
): { a: PackColumn; b: PackColumn | null; mode: SlotMode; scale: number } | null {
  if (query.source.kind !== "rollups" || query.stepMs !== query.source.widthS * 1000) return null;
  // A slot's rows, and its pack, are one identity's: several read as one take the general path.
  if ((query.alsoIds?.length ?? 0) > 0) return null;
  if (quantileOf(query.agg) !== null) return null;
  const family = aggFamily(query.metric);
  switch (query.agg) {
    case "last":
      // One row per series and slot: each series' newest value is its row's.
      return { a: "value_last", b: null, mode: "sum", scale: 1 };
    case "rate":
      return { a: "increase", b: null, mode: "sum", scale: 1000 / query.stepMs };
    case "increase":
    case "count":
      return { a: "increase", b: null, mode: "sum", scale: 1 };
    case "sum": {
      const a = family === "gauge" ? "value_sum" : family === "sum" ? "increase" : "sum_increase";
      return { a, b: null, mode: "sum", scale: 1 };
    }
    case "avg":
      return family === "gauge"
        ? { a: "value_sum", b: "points", mode: "ratio", scale: 1 }
        : { a: "sum_increase", b: "increase", mode: "ratio", scale: 1 };
    case "min":
      return { a: "value_min", b: null, mode: "min", scale: 1 };
    case "max":
      return { a: "value_max", b: null, mode: "max", scale: 1 };
    default:
      return null;
  }
}

export type SlotPlan = NonNullable<ReturnType<typeof slotPlan>>;

/** Per group: how many non-null `a` values, their sum (or min, max), the sum of `b`, the resets. */
export interface Figures {
  n: number;
  a: number;
  b: number;
  resets: number;
}

function add(mode: SlotMode, f: Figures, a: number | null, b: number | null): void {
  // Every row's denominator, as SQL's sum(b) counts it: a ratio's totals are then the same
  // whatever the rows' width (a 900 s row sums minutes some of which lack the numerator).
  if (b !== null) f.b += b;
  if (a === null) return;
  if (f.n === 0) f.a = a;
  else if (mode === "min") f.a = Math.min(f.a, a);
  else if (mode === "max") f.a = Math.max(f.a, a);
  else f.a += a;
  f.n += 1;
}

/** Figures of two sets of rows of one group together (a slot's minutes), as one set of rows would give them. */
export function combineFigures(mode: SlotMode, into: Figures | undefined, f: Figures): Figures {
  if (into === undefined) return { ...f };
  const a =
    f.n === 0
      ? into.a
      : into.n === 0
        ? f.a
        : mode === "min"
          ? Math.min(into.a, f.a)
          : mode === "max"
            ? Math.max(into.a, f.a)
            : into.a + f.a;
  return { n: into.n + f.n, a, b: into.b + f.b, resets: into.resets + f.resets };
}

/** The value of a group's figures, as SQL's sum, min, max and their ratio answer it. */
export function slotValue(mode: SlotMode, f: Figures, scale: number): number | null {
  if (f.n === 0) return null;
  if (mode === "ratio") return f.b === 0 ? null : f.a / f.b;
  return f.a * scale;
}

/**
 * Defines obs_slot_sum / obs_slot_min / obs_slot_max(series_id, a, rare) and
 * obs_slot_ratio(series_id, a, b, rare) on a connection: JSON of
 * [[gid, n, a, b, resets], ..] for the rows of one slot. Each looks the series' group up itself
 * (rows of series outside the scope left out), and the mode is the function's, so a row costs
 * one call with only the columns it needs: the calls, not the reads, were most of the query's
 * time. `rare` is RARE_ARG: the row's resets, and its exemplars, which go to its group's in
 * `exemplars`.
 */
export function registerSlotGroups(db: Database.Database, seriesGroups: SeriesGroups, exemplars: GroupExemplars): void {
  // A slot's figures by group number (groups are numbered from 0, so an array serves).
  const result = (groups: (Figures | undefined)[]) => {
    const rows: [number, number, number, number, number][] = [];
    groups.forEach((f, gid) => {
      if (f) rows.push([gid, f.n, f.a, f.b, f.resets]);
    });
    // An infinite value (SQLite keeps them) as text: JSON would make it null, and the answer 0.
    return JSON.stringify(rows, (_key, value) =>
      typeof value === "number" && !Number.isFinite(value) ? String(value) : value,
    );
  };
  const figuresOf = (groups: (Figures | undefined)[], series: unknown, rare: unknown): Figures | null => {
    const gid = seriesGroups.of(Number(series));
    let resets = 0;
    if (typeof rare === "string") {
      const parts = rareParts(rare);
      if (parts.exemplar !== null) addRareExemplars(exemplars, gid, Number(series), parts.exemplar);
      resets = parts.resets;
    }
    if (gid === null) return null;
    let f = groups[gid];
    if (!f) {
      f = { n: 0, a: 0, b: 0, resets: 0 };
      groups[gid] = f;
    }
    f.resets += resets;
    return f;
  };
  for (const mode of ["sum", "min", "max"] as const) {
    const options = {
      start: (): (Figures | undefined)[] => [],
      // Named parameters: better-sqlite3 takes the function's arity from them.
      step: (groups: (Figures | undefined)[], series: unknown, a: unknown, rare: unknown) => {
        const f = figuresOf(groups, series, rare);
        if (f) add(mode, f, a === null ? null : Number(a), null);
      },
      result,
      safeIntegers: false,
    };
    db.aggregate(`obs_slot_${mode}`, options as unknown as AggregateOptions);
  }
  const ratio = {
    start: (): (Figures | undefined)[] => [],
    step: (groups: (Figures | undefined)[], series: unknown, a: unknown, b: unknown, rare: unknown) => {
      const f = figuresOf(groups, series, rare);
      if (f) add("ratio", f, a === null ? null : Number(a), b === null ? null : Number(b));
    },
    result,
    safeIntegers: false,
  };
  db.aggregate("obs_slot_ratio", ratio as unknown as AggregateOptions);
}

/** Rows of (slot, JSON of the slot's groups) for a query slotPlan() accepts, from the slots' rows. */
export function slotSql(plan: SlotPlan): string {
  const args = plan.mode === "ratio" ? `r.${plan.a}, ${plan.b === null ? "NULL" : `r.${plan.b}`}` : `r.${plan.a}`;
  return `SELECT r.slot, obs_slot_${plan.mode}(r.series_id, ${args}, ${RARE_ARG})
    FROM metric_rollups r WHERE r.metric_id = @metric AND r.width_s = @width AND r.slot BETWEEN @slotLo AND @slotHi
    GROUP BY r.slot`;
}

/**
 * Rows of the packed slots in a query's range (store/metric-slot-packs.ts), ascending, with the
 * columns the plan reads: slot, series_ids, a, b, resets, exemplars and last_ns (the exemplars'
 * time, only where there are any). Every slot up to the last of them is packed or has no
 * rows, so the rows of the slots after it (slotSql) complete the range.
 */
export function packedSlotsSql(plan: SlotPlan): string {
  const b = plan.b === null ? "NULL" : packColumnName(plan.b);
  return `SELECT slot, series_ids, ${packColumnName(plan.a)} AS a, ${b} AS b, resets, exemplars,
      CASE WHEN exemplars IS NOT NULL THEN last_ns END AS last_ns
    FROM metric_slot_packs WHERE metric_id = @metric AND width_s = @width AND slot BETWEEN @slotLo AND @slotHi
    ORDER BY slot`;
}

/** A packedSlotsSql row. */
export type PackedSlotRow = [
  slot: bigint,
  seriesIds: Buffer,
  a: Buffer | null,
  b: Buffer | null,
  resets: Buffer | null,
  exemplars: Buffer | null,
  lastNs: Buffer | null,
];

/**
 * The figures of one packed slot by group, as the slot aggregates make them from the same
 * rows: series outside the scope left out, resets counted, exemplars to their groups' in
 * `exemplars`.
 */
export function packedSlotFigures(
  row: PackedSlotRow,
  plan: SlotPlan,
  seriesGroups: SeriesGroups,
  exemplars: GroupExemplars,
): [number, Figures][] {
  const [, seriesIds, a, b, resets, exemplarTexts, lastNs] = row;
  const groups: (Figures | undefined)[] = [];
  const ids = packedFloats(seriesIds) as Float64Array;
  // A NULL column is every value NULL (resets: 0).
  const as = packedFloats(a);
  const bs = packedFloats(b);
  const resetCounts = packedFloats(resets);
  const times = lastNs === null ? null : packedTimes(lastNs);
  for (const column of [as, bs, resetCounts, times]) {
    if (column !== null && column.length !== ids.length) {
      throw new Error(`a metric slot pack with ${column.length} values for ${ids.length} series`);
    }
  }
  const texts = times === null ? null : packedTexts(exemplarTexts, ids.length);
  for (let i = 0; i < ids.length; i++) {
    const gid = seriesGroups.of(ids[i] as number);
    if (texts !== null && times !== null) {
      const traceIds = texts.next().value;
      if (typeof traceIds === "string") addRowExemplars(exemplars, gid, ids[i] as number, times[i] as bigint, traceIds);
    }
    if (gid === null) continue;
    let f = groups[gid];
    if (!f) {
      f = { n: 0, a: 0, b: 0, resets: 0 };
      groups[gid] = f;
    }
    if (resetCounts !== null) f.resets += resetCounts[i] as number;
    // NaN is a NULL (metric-slot-packs.ts).
    const x = as === null ? Number.NaN : (as[i] as number);
    const y = bs === null ? Number.NaN : (bs[i] as number);
    add(plan.mode, f, Number.isNaN(x) ? null : x, Number.isNaN(y) ? null : y);
  }
  const out: [number, Figures][] = [];
  groups.forEach((f, gid) => {
    if (f) out.push([gid, f]);
  });
  return out;
}

/** The figures of one slot's JSON, as [gid, figures]. */
export function slotFigures(json: string): [number, Figures][] {
  return (JSON.parse(json) as [number, number, number | string, number | string, number][]).map(
    ([gid, n, a, b, resets]) => [gid, { n, a: Number(a), b: Number(b), resets }],
  );
}
