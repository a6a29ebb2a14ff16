/**
 * The series' newest times per commit: every commit moves the newest time of each series it
 * touched, in one `UPDATE ... FROM json_each`. Measured on the real schema (a store opened as
 * obsd opens it), SERIES series of about 300 bytes of attributes, TOUCHED of them per commit, for:
 *
 * - `in the series row`: `metric_series.last_ns`, as the writer kept it up to schema 22 (the
 *   column is added back to the scratch store); each update rewrote the series' whole row and
 *   the pages holding it;
 * - `a table of their own`: `metric_series_last` (schema 23, the writer now), a few bytes a
 *   series.
 *
 * Rates are the statements' CPU time in this process (process.cpuUsage), per point, the commit
 * (its write-ahead log pages) included.
 */
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openWriteConnection } from "../daemon/store/connection.js";

const SERIES = 5_000;
const TOUCHED = 800;
const COMMITS = Number(process.env.EXTENT_COMMITS ?? 300);
const S = 1_000_000_000n;
const T0 = 1_700_000_000n * S;

type Variant = "in the series row" | "a table of their own";

const SQL: Record<Variant, string> = {
  "in the series row": `UPDATE metric_series SET last_ns = max(metric_series.last_ns, e.last)
    FROM (SELECT value ->> 0 AS id, value ->> 1 AS last FROM json_each(?)) AS e WHERE metric_series.id = e.id`,
  "a table of their own": `UPDATE metric_series_last SET last_ns = max(metric_series_last.last_ns, e.last)
    FROM (SELECT value ->> 0 AS id, value ->> 1 AS last FROM json_each(?)) AS e WHERE metric_series_last.series_id = e.id`,
};

function seed(db: Database.Database): void {
  db.exec(
    "INSERT INTO metrics (id, name, kind, unit, temporality, monotonic, description) VALUES (1, 'm', 'sum', '', 2, 1, '')",
  );
  db.exec("ALTER TABLE metric_series ADD COLUMN last_ns INTEGER");
  const insert = db.prepare(
    `INSERT INTO metric_series (id, metric_id, service_id, resource_id, scope_id, attr_hash, attributes, first_ns, last_ns, first_whole)
     VALUES (?, 1, 1, 1, 1, ?, ?, ?, ?, 0)`,
  );
  const last = db.prepare("INSERT INTO metric_series_last (series_id, last_ns) VALUES (?, ?)");
  db.transaction(() => {
    for (let id = 1; id <= SERIES; id++) {
      const attributes = JSON.stringify({ "http.route": `/r${id}`, padding: "x".repeat(280) });
      insert.run(id, Buffer.from(String(id).padStart(20, "0")), attributes, T0, T0);
      last.run(id, T0);
    }
  })();
}

function run(dir: string, variant: Variant, round: number): number {
  const { db } = openWriteConnection(join(dir, `extents-${round}-${variant.replace(/ /g, "-")}.sqlite`));
  try {
    seed(db);
    const statement = db.prepare(SQL[variant]);
    let cpu = 0;
    for (let c = 0; c < COMMITS; c++) {
      const timeNs = T0 + BigInt(c + 1) * S;
      const entries: string[] = [];
      for (let k = 0; k < TOUCHED; k++) entries.push(`[${((c * TOUCHED + k) % SERIES) + 1},${timeNs}]`);
      const json = `[${entries.join(",")}]`;
      const before = process.cpuUsage();
      db.transaction(() => statement.run(json))();
      const used = process.cpuUsage(before);
      cpu += used.user + used.system;
    }
    return (COMMITS * TOUCHED) / (cpu / 1e6);
  } finally {
    db.close();
  }
}

/** Points per CPU second of the extent statement alone, the median of `rounds` alternating runs. */
export function extentWrites(dir: string, rounds = 3): Record<Variant, { pointsPerCpuSecond: number }> {
  const variants: Variant[] = ["in the series row", "a table of their own"];
  const runs = new Map<Variant, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const variant of variants) runs.set(variant, [...(runs.get(variant) ?? []), run(dir, variant, r)]);
  }
  const median = (all: number[]) => [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)] as number;
  return Object.fromEntries(
    variants.map((variant) => [variant, { pointsPerCpuSecond: Math.round(median(runs.get(variant) ?? [])) }]),
  ) as Record<Variant, { pointsPerCpuSecond: number }>;
}
