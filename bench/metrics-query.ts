/**
 * bench/metrics-query: /api/metrics/series over a day of 1,000 cumulative counter series (10
 * services, 20 routes) reporting every 10 s, answered from the rollups as the query service
 * reads them. The rollup rows (60 s and 900 s) are written with SQL as the writer keeps them,
 * so the figures are the query's alone. Prints p50 and p95 per query shape.
 *
 *   npm run build && node dist/bench/metrics-query.js     (BENCH_SERIES=1000)
 */
import { performance } from "node:perf_hooks";
import { QueryService } from "../daemon/query/query-service.js";
import { SqliteReader } from "../daemon/query/sqlite-reader.js";
import { openReadConnection } from "../daemon/store/connection.js";
import type { MetricSeriesRequest } from "../shared/query-types.js";
import { insertMetric, insertSeries } from "../test/helpers/metric-rows.js";
import { testStore } from "../test/helpers/store.js";
import { percentile, round } from "./measure.js";

const SERIES = Number(process.env.BENCH_SERIES ?? 1000);
const S = 1_000_000_000n;
const DAY_S = 86_400;
const nowS = Math.floor(Date.now() / 1000);
const fromS = nowS - DAY_S;

const store = testStore();
const db = store.db;
const built = performance.now();
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
console.log(`built ${SERIES} series x 24 h of rollups in ${round((performance.now() - built) / 1000)} s`);

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
  for (let i = 0; i < 11; i++) {
    const start = performance.now();
    service.metricSeries(request);
    ms.push(performance.now() - start);
  }
  console.log(`${name}: p50 ${round(percentile(ms, 50))} ms, p95 ${round(percentile(ms, 95))} ms`);
}
readDb.close();
store.close();
