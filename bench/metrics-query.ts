/**
 * bench/metrics-query: /api/metrics/series over a day of 1,000 cumulative counter series (10
 * services, 20 routes) reporting every 10 s, answered from the rollups as the query service
 * reads them. The 60 s rollup rows are written with SQL as the writer keeps them, and the
 * closed 900 s slots merged from them and packed as the writer does (metric-slot-packer.ts), so
 * the figures are the query's alone. (900 s rows are written too, for stores of schema 12; the
 * packing replaces them, and queries read the 60 s rows of slots not packed.) Prints p50 and p95 per query shape.
 *
 *   npm run bench:metrics-query     (BENCH_SERIES=1000, BENCH_RUNS=11)
 *
 * BENCH_DB=file keeps the built store in that file and reuses it on the next run (its window
 * ends at the newest rollup), so repeated measurements skip the build.
 */
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { QueryService } from "../daemon/query/query-service.js";
import { SqliteReader } from "../daemon/query/sqlite-reader.js";
import { openReadConnection, openWriteConnection } from "../daemon/store/connection.js";
import { MetricSlotPacker, PACK_GRACE_S, PACKED_WIDTHS_S } from "../daemon/store/metric-slot-packer.js";
import { slotOf } from "../daemon/store/metric-slots.js";
import type { MetricSeriesRequest } from "../shared/query-types.js";
import { insertMetric, insertSeries } from "../test/helpers/metric-rows.js";
import { testStore } from "../test/helpers/store.js";
import { percentile, round } from "./measure.js";

const SERIES = Number(process.env.BENCH_SERIES ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const KEPT = process.env.BENCH_DB;
const S = 1_000_000_000n;
const DAY_S = 86_400;

const reused = KEPT !== undefined && existsSync(KEPT);
const store = KEPT === undefined ? testStore() : { ...openWriteConnection(KEPT), path: KEPT };
const db = store.db;
const newestNs = reused
  ? (db.prepare("SELECT max(last_ns) FROM metric_series_last").pluck().get() as bigint | null)
  : null;
const nowS = newestNs === null ? Math.floor(Date.now() / 1000) : Number(newestNs / S);
const fromS = nowS - DAY_S;

const built = performance.now();
if (!reused) build();
console.log(
  reused
    ? `reused ${KEPT}`
    : `built ${SERIES} series x 24 h of rollups in ${round((performance.now() - built) / 1000)} s`,
);
packClosedSlots();

/** Packs the slots the writer would have packed by now (metric-slot-packer.ts), as it does, from the rows. */
function packClosedSlots(): void {
  const packer = new MetricSlotPacker(db);
  const newest = BigInt(nowS) * S - BigInt(PACK_GRACE_S) * S;
  const started = performance.now();
  let packed = 0;
  db.transaction(() => {
    for (const metricId of db.prepare("SELECT id FROM metrics").pluck().safeIntegers(false).all() as number[]) {
      for (const width of PACKED_WIDTHS_S) packed += packer.packThrough(metricId, width, slotOf(newest, width) - 1);
    }
  })();
  if (packed > 0) {
    console.log(`merged ${packed} minute rows into closed slots in ${round((performance.now() - started) / 1000)} s`);
  }
}

function build(): void {
  db.transaction(() => {
    const metricId = insertMetric(db, { name: "http.requests", kind: "sum", temporality: 2, monotonic: true });
    const rollup = db.prepare(
      `INSERT INTO metric_rollups (metric_id, width_s, slot, series_id, points, first_ns, last_ns, value_sum, value_min,
      value_max, value_last, increase, sum_increase, resets, buckets, exemplars)
      VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, NULL, 0, NULL, NULL)`,
    );
    for (let i = 0; i < SERIES; i++) {
      const series = insertSeries(
        db,
        metricId,
        `svc-${i % 10}`,
        { route: `/r${i % 20}`, n: String(i) },
        BigInt(fromS) * S,
        BigInt(nowS) * S,
      );
      // Each series counts `rate` requests per second.
      const rate = 1 + (i % 7);
      for (const width of [60, 900]) {
        for (let slot = Math.floor(fromS / width); slot <= Math.floor(nowS / width); slot++) {
          const start = BigInt(slot * width) * S;
          const points = width / 10;
          rollup.run(
            metricId,
            width,
            slot,
            series,
            points,
            start,
            start + BigInt(width - 10) * S,
            rate * (slot * width),
            rate * width,
          );
        }
      }
    }
  })();
}

const readDb = openReadConnection(store.path);
const service = new QueryService({
  reader: new SqliteReader(readDb),
  now: () => BigInt(nowS) * S,
  cursorKey: Buffer.alloc(32, 1),
});

const shapes: Record<string, MetricSeriesRequest> = {
  "24h rate, ungrouped": { name: "http.requests", lookback: 86_400_000 },
  "24h rate by service": { name: "http.requests", lookback: 86_400_000, groupBy: ["service"] },
  "24h rate by service and attr.route": {
    name: "http.requests",
    lookback: 86_400_000,
    groupBy: ["service", { attr: "route" }],
    limit: 100,
  },
  "1h increase by service (60 s rollups)": {
    name: "http.requests",
    lookback: 3_600_000,
    agg: "increase",
    groupBy: ["service"],
  },
};
for (const [name, request] of Object.entries(shapes)) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    service.metricSeries(request);
    ms.push(performance.now() - start);
  }
  console.log(`${name}: p50 ${round(percentile(ms, 50))} ms, p95 ${round(percentile(ms, 95))} ms`);
}
readDb.close();
if ("close" in store) store.close();
else db.close();
