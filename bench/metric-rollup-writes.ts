/**
 * Rollup rows per commit, the largest share of the metric writer's SQLite time: every commit
 * rewrites the row of each width's current slot for every series it touched. Measured on the
 * real schema (a store opened as obsd opens it), with about the workload of bench/metrics (SERIES
 * series every INTERVAL_S s, TOUCHED series per transaction), for:
 *
 * - `upsert`: `INSERT ... ON CONFLICT (key) DO UPDATE SET` every column (the writer before);
 * - `replace`: `INSERT OR REPLACE` of the whole row (the writer now: the rows carry every column);
 * - `replace, 900 s at slot close`: the contract change docs/metrics-store.md proposes, where a
 *   commit rewrites only the 60 s rows and the 900 s rows are written once, when their slot
 *   closes (queries answering a still open 900 s slot from its 60 s rows).
 *
 * Rates are rows' CPU time in this process (process.cpuUsage), per point stored: on the
 * shared machine CPU time varies far less than wall time.
 */
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openWriteConnection } from "../daemon/store/connection.js";
import { ROLLUP_COLUMNS } from "../daemon/store/metric-rollup-store.js";
import { round } from "./measure.js";
import { INTERVAL_S } from "./metric-workload.js";

/** Six transactions of 768 series: whole statements of CHUNK rows, as the writer's are mostly. */
const SERIES = 4_608;
const TOUCHED = 768;
const INTERVALS = Number(process.env.ROLLUP_INTERVALS ?? 180);
const CHUNK = 128;
const T0_S = 1_700_000_000;

type Variant = "upsert" | "replace" | "replace, 900 s at slot close";

function statement(db: Database.Database, variant: Variant): Database.Statement {
  const tuple = `(${ROLLUP_COLUMNS.map(() => "?").join(", ")})`;
  const values = new Array(CHUNK).fill(tuple).join(", ");
  if (variant === "upsert") {
    const updates = ROLLUP_COLUMNS.slice(4)
      .map((column) => `${column} = excluded.${column}`)
      .join(", ");
    return db.prepare(
      `INSERT OR FAIL INTO metric_rollups (${ROLLUP_COLUMNS.join(", ")}) VALUES ${values}
       ON CONFLICT (metric_id, width_s, slot, series_id) DO UPDATE SET ${updates}`,
    );
  }
  return db.prepare(`INSERT OR REPLACE INTO metric_rollups (${ROLLUP_COLUMNS.join(", ")}) VALUES ${values}`);
}

function rowOf(out: unknown[], series: number, width: number, k: number): void {
  const timeS = T0_S + k * INTERVAL_S;
  const timeNs = BigInt(timeS) * 1_000_000_000n;
  const value = k * (series + 1);
  out.push(1, width, Math.floor(timeS / width), series, (k % 6) + 1, timeNs, timeNs);
  out.push(value, 0, value, value, series + 1, null, 0, null, null);
}

/** Rollup rows written per second of CPU, per point (one point per series and interval). */
function run(dir: string, variant: Variant): { pointsPerCpuSecond: number; rowsPerPoint: number } {
  const { db } = openWriteConnection(join(dir, `rollups-${variant.replace(/\W+/g, "-")}.sqlite`));
  const insert = statement(db, variant);
  const atClose = variant === "replace, 900 s at slot close";
  let cpuUs = 0;
  let rows = 0;
  const flush = (values: unknown[]) => {
    for (let at = 0; at + CHUNK * ROLLUP_COLUMNS.length <= values.length; at += CHUNK * ROLLUP_COLUMNS.length) {
      insert.run(values.slice(at, at + CHUNK * ROLLUP_COLUMNS.length));
      rows += CHUNK;
    }
  };
  for (let k = 0; k < INTERVALS; k++) {
    for (let first = 0; first < SERIES; first += TOUCHED) {
      const values: unknown[] = [];
      for (let series = first; series < first + TOUCHED; series++) {
        rowOf(values, series, 60, k);
        // The 900 s row: every commit, or once, at the last interval of its slot.
        const closes = Math.floor((T0_S + (k + 1) * INTERVAL_S) / 900) !== Math.floor((T0_S + k * INTERVAL_S) / 900);
        if (!atClose || closes) rowOf(values, series, 900, k);
      }
      const started = process.cpuUsage();
      db.transaction(() => flush(values))();
      const used = process.cpuUsage(started);
      cpuUs += used.user + used.system;
    }
  }
  db.close();
  const points = SERIES * INTERVALS;
  return { pointsPerCpuSecond: Math.round(points / (cpuUs / 1e6)), rowsPerPoint: round(rows / points, 3) };
}

/** Each variant in turn, `rounds` times, the median of each. */
export function rollupWrites(
  dir: string,
  rounds = 3,
): Record<Variant, { pointsPerCpuSecond: number; rowsPerPoint: number }> {
  const variants: Variant[] = ["upsert", "replace", "replace, 900 s at slot close"];
  const runs = new Map<Variant, { pointsPerCpuSecond: number; rowsPerPoint: number }[]>();
  for (let r = 0; r < rounds; r++) {
    for (const variant of variants) runs.set(variant, [...(runs.get(variant) ?? []), run(dir, variant)]);
  }
  const median = (all: { pointsPerCpuSecond: number; rowsPerPoint: number }[]) =>
    [...all].sort((a, b) => a.pointsPerCpuSecond - b.pointsPerCpuSecond)[Math.floor(all.length / 2)] as {
      pointsPerCpuSecond: number;
      rowsPerPoint: number;
    };
  return Object.fromEntries(variants.map((variant) => [variant, median(runs.get(variant) ?? [])])) as Record<
    Variant,
    { pointsPerCpuSecond: number; rowsPerPoint: number }
  >;
}
