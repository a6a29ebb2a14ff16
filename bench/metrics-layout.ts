/**
 * bench/metrics-layout: the measurements behind docs/metrics-store.md. Each alternative is
 * written into its own fresh store file with the same rows, and reports bytes per point (pages
 * of the table and its indexes, from dbstat) and points written per second.
 *
 * 1. Points: WITHOUT ROWID keyed by (series, time) against a rowid table with a unique index
 *    on (series, time) (both reject a resent point by their key).
 * 2. Histogram detail: JSON text against a binary encoding (float64 bounds, varint counts).
 * 3. Reading a day: per-series 15-minute increases from the rollups against the same from the
 *    raw points, on a store filled by the real writer (SERIES series at 10 s over 24 hours).
 * 4. Rollup rows per commit: upsert against replace, and both widths every commit against the
 *    900 s rows written when their slot closes (metric-rollup-writes.ts).
 * 5. Series newest times per commit: in the series row (up to schema 22) against a table of their own
 *    (metric-extent-writes.ts).
 *
 *   npm run bench:metrics-layout   (LAYOUT_SERIES=1000 LAYOUT_INTERVALS=360 QUERY_SERIES=100)
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import type { MetricBatch } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";
import { extentWrites } from "./metric-extent-writes.js";
import { rollupWrites } from "./metric-rollup-writes.js";
import { fillBatches, INTERVAL_S } from "./metric-workload.js";

const SERIES = Number(process.env.LAYOUT_SERIES ?? 1000);
const INTERVALS = Number(process.env.LAYOUT_INTERVALS ?? 360);
const QUERY_SERIES = Number(process.env.QUERY_SERIES ?? 100);
const S = 1_000_000_000n;
const T0 = BigInt(Date.now() - 86_400_000) * 1_000_000n;

function bytesOf(db: Database.Database, names: string[]): number {
  const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
    name: string;
    bytes: number;
  }[];
  return rows.filter((row) => names.includes(row.name)).reduce((sum, row) => sum + Number(row.bytes), 0);
}

function freshDb(dir: string, name: string): Database.Database {
  const db = new Database(join(dir, name));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("page_size = 16384");
  db.exec("VACUUM");
  return db;
}

/** Writes the same points into `table` (created by `ddl`): one transaction per interval. */
function writePoints(db: Database.Database, ddl: string, detail: (i: number, k: number) => unknown) {
  db.exec(ddl);
  const columns = "(series_id, time_ns, start_ns, flags, value, count, sum, min, max, detail, exemplars)";
  const tuple = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  const chunk = 200;
  const insert = db.prepare(
    `INSERT INTO p ${columns} VALUES ${new Array(chunk).fill(tuple).join(", ")} ON CONFLICT DO NOTHING`,
  );
  const started = performance.now();
  for (let k = 0; k < INTERVALS; k++) {
    const timeNs = T0 + BigInt(k * INTERVAL_S) * S;
    db.transaction(() => {
      for (let first = 0; first < SERIES; first += chunk) {
        const values: unknown[] = [];
        for (let i = first; i < first + chunk; i++) {
          const d = detail(i, k);
          values.push(
            i + 1,
            timeNs,
            T0 - 60n * S,
            0,
            d === null ? k * (i + 1) : null,
            d === null ? null : k,
            d === null ? null : k * 2.5,
            null,
            null,
            d,
            null,
          );
        }
        insert.run(values);
      }
    })();
  }
  const seconds = (performance.now() - started) / 1000;
  const points = SERIES * INTERVALS;
  return { pointsPerSec: Math.round(points / seconds), bytesPerPoint: round(bytesOf(db, ["p", "p_key"]) / points, 1) };
}

const POINT_COLUMNS = `series_id INTEGER NOT NULL, time_ns INTEGER NOT NULL, start_ns INTEGER NOT NULL, flags INTEGER NOT NULL,
  value REAL, count INTEGER, sum REAL, min REAL, max REAL, detail BLOB, exemplars TEXT`;
const LAYOUTS = {
  withoutRowid: `CREATE TABLE p (${POINT_COLUMNS}, PRIMARY KEY (series_id, time_ns)) WITHOUT ROWID`,
  rowidWithIndex: `CREATE TABLE p (id INTEGER PRIMARY KEY, ${POINT_COLUMNS}); CREATE UNIQUE INDEX p_key ON p (series_id, time_ns)`,
};

const BOUNDS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

/** Float64 bounds then unsigned LEB128 counts. */
function binaryDetail(counts: number[]): Buffer {
  const out: number[] = [];
  const bounds = Buffer.alloc(8 * BOUNDS.length);
  BOUNDS.forEach((b, i) => {
    bounds.writeDoubleLE(b, 8 * i);
  });
  for (let c of counts) {
    do {
      let byte = c & 0x7f;
      c = Math.floor(c / 128);
      if (c > 0) byte |= 0x80;
      out.push(byte);
    } while (c > 0);
  }
  return Buffer.concat([Buffer.from([BOUNDS.length]), bounds, Buffer.from(out)]);
}

const countsOf = (i: number, k: number) => BOUNDS.map((_, b) => (k * (b + 1) * ((i % 5) + 1)) % 1000).concat([k]);

function readDay(dir: string) {
  const { db } = openWriteConnection(join(dir, "day.sqlite"));
  const writer = new TelemetryWriter(db, 0n);
  const intervals = 86_400 / INTERVAL_S;
  const started = performance.now();
  let group: MetricBatch[] = [];
  const flush = () => {
    const batches = group;
    writer.transaction(() => {
      for (const batch of batches) writer.writeMetrics(batch, 0n);
    });
    group = [];
  };
  for (const batch of fillBatches(QUERY_SERIES, 10, intervals, T0)) {
    group.push(batch);
    if (group.length === 16) flush();
  }
  if (group.length > 0) flush();
  writer.writeHeld();
  const fillSeconds = (performance.now() - started) / 1000;
  const points = QUERY_SERIES * intervals;
  const end = T0 + 86_400n * S;
  const fromRollups = db.prepare(
    "SELECT series_id, slot, increase FROM metric_rollups WHERE metric_id = 1 AND width_s = 900 AND slot >= ? AND slot < ?",
  );
  // The same increases from the raw points: each point's growth from the one before (no resets here).
  const fromPoints = db.prepare(
    `SELECT series_id, time_ns / 900000000000 AS slot, sum(d) FROM (
       SELECT series_id, time_ns, value - lag(value, 1, value) OVER (PARTITION BY series_id ORDER BY time_ns) AS d
       FROM metric_points WHERE series_id IN (SELECT id FROM metric_series WHERE metric_id = 1) AND time_ns >= ? AND time_ns < ?)
     GROUP BY series_id, slot`,
  );
  const time = (run: () => unknown[]) => {
    const ms: number[] = [];
    let rows = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      rows = run().length;
      ms.push(performance.now() - t);
    }
    return { p50Ms: round(percentile(ms, 50), 1), rows };
  };
  const result = {
    series: QUERY_SERIES,
    points,
    fillPointsPerSec: Math.round(points / fillSeconds),
    rollups: time(() => fromRollups.all(T0 / (900n * S), end / (900n * S) + 1n)),
    rawPoints: time(() => fromPoints.all(T0, end)),
    bytes: {
      pointsPerPoint: round(bytesOf(db, ["metric_points"]) / points, 1),
      rollupsPerPoint: round(bytesOf(db, ["metric_rollups"]) / points, 1),
      seriesAndAttributes: bytesOf(db, [
        "metric_series",
        "metric_series_last",
        "metric_series_attributes",
        "metric_series_by_service",
      ]),
    },
  };
  db.close();
  return result;
}

function main(): void {
  const dir = tempDir("obs-bench-metrics-layout-");
  try {
    console.log(`bench/metrics-layout: ${SERIES} series x ${INTERVALS} intervals of ${INTERVAL_S} s per layout`);
    const sums = Object.fromEntries(
      Object.entries(LAYOUTS).map(([name, ddl]) => {
        const db = freshDb(dir.path, `${name}.sqlite`);
        const result = writePoints(db, ddl, () => null);
        db.close();
        return [name, result];
      }),
    );
    console.table(sums);
    const json = freshDb(dir.path, "detail-json.sqlite");
    const binary = freshDb(dir.path, "detail-binary.sqlite");
    const details = {
      json: writePoints(json, LAYOUTS.withoutRowid, (i, k) =>
        JSON.stringify({ bounds: BOUNDS, counts: countsOf(i, k) }),
      ),
      binary: writePoints(binary, LAYOUTS.withoutRowid, (i, k) => binaryDetail(countsOf(i, k))),
    };
    json.close();
    binary.close();
    console.table(details);
    const day = readDay(dir.path);
    console.log(JSON.stringify(day));
    const rollups = rollupWrites(dir.path);
    console.table(rollups);
    const extents = extentWrites(dir.path);
    console.table(extents);
    console.log(JSON.stringify({ benchmark: "metrics-layout", sums, details, day, rollups, extents }));
  } finally {
    dir.cleanup();
  }
}

main();
