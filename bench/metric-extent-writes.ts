/**
 * The series' time extents per commit: every commit moves `metric_series.last_ns` of each series
 * it touched, in one `UPDATE ... FROM json_each`. Measured on the real schema (a store opened as
 * obsd opens it), SERIES series of about 300 bytes of attributes, TOUCHED of them per commit, for:
 *
 * - `first and last`: both assigned (`first_ns = min(first_ns, e.first)`), as the writer did;
 * - `last alone`: only last_ns (the writer now; a late point moves first_ns by a statement of
 *   its own, and only when it is older). first_ns is indexed (retention reads series oldest
 *   first), and assigning it, even its own value, rewrote its index entry.
 *
 * Rates are the statements' CPU time in this process (process.cpuUsage), per point.
 */
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openWriteConnection } from "../daemon/store/connection.js";

const SERIES = 5_000;
const TOUCHED = 800;
const COMMITS = Number(process.env.EXTENT_COMMITS ?? 300);
const S = 1_000_000_000n;
const T0 = 1_700_000_000n * S;

type Variant = "first and last" | "last alone";

const SQL: Record<Variant, string> = {
  "first and last": `UPDATE metric_series SET first_ns = min(metric_series.first_ns, e.first), last_ns = max(metric_series.last_ns, e.last)
    FROM (SELECT value ->> 0 AS id, value ->> 1 AS first, value ->> 2 AS last FROM json_each(?)) AS e WHERE metric_series.id = e.id`,
  "last alone": `UPDATE metric_series SET last_ns = max(metric_series.last_ns, e.last)
    FROM (SELECT value ->> 0 AS id, value ->> 2 AS last FROM json_each(?)) AS e WHERE metric_series.id = e.id`,
};

function seed(db: Database.Database): void {
  db.exec(
    "INSERT INTO metrics (id, name, kind, unit, temporality, monotonic, description) VALUES (1, 'm', 'sum', '', 2, 1, '')",
  );
  const insert = db.prepare(
    `INSERT INTO metric_series (id, metric_id, service_id, resource_id, scope_id, attr_hash, attributes, first_ns, last_ns, first_whole)
     VALUES (?, 1, 1, 1, 1, ?, ?, ?, ?, 0)`,
  );
  db.transaction(() => {
    for (let id = 1; id <= SERIES; id++) {
      const attributes = JSON.stringify({ "http.route": `/r${id}`, padding: "x".repeat(280) });
      insert.run(id, Buffer.from(String(id).padStart(20, "0")), attributes, T0, T0);
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
      for (let k = 0; k < TOUCHED; k++) entries.push(`[${((c * TOUCHED + k) % SERIES) + 1},${timeNs},${timeNs}]`);
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
  const variants: Variant[] = ["first and last", "last alone"];
  const runs = new Map<Variant, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const variant of variants) runs.set(variant, [...(runs.get(variant) ?? []), run(dir, variant, r)]);
  }
  const median = (all: number[]) => [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)] as number;
  return Object.fromEntries(
    variants.map((variant) => [variant, { pointsPerCpuSecond: Math.round(median(runs.get(variant) ?? [])) }]),
  ) as Record<Variant, { pointsPerCpuSecond: number }>;
}
