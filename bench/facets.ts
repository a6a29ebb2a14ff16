/**
 * bench/facets: attribute facets and the services of a window over a store of 200,000 spans
 * spread over 24 hours, each batch exported up to 10 s late (so the window's rows interleave
 * with others at its start, as they do in use). Prints p50 per window length: facets without a
 * service (the postings index, less the ids left out), with one (the spans read one by one),
 * and the services count health reads (rollups).
 *
 *   npm run build && node dist/bench/facets.js     (BENCH_SPANS=200000)
 */
import { performance } from "node:perf_hooks";
import { ServiceActivity } from "../daemon/query/service-activity.js";
import { SqliteFacets } from "../daemon/query/sqlite-facets.js";
import type { FacetField } from "../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../daemon/store/connection.js";
import { hexId, type SpanSpec, traceRequest } from "../test/helpers/otlp-builders.js";
import { testStore } from "../test/helpers/store.js";
import { percentile } from "./measure.js";

const SPANS = Number(process.env.BENCH_SPANS ?? 200_000);
const PER_BATCH = 2000;
const MS = 1_000_000n;
const DAY_MS = 86_400_000;

function p50(run: () => void, times = 7): number {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    run();
    ms.push(performance.now() - start);
  }
  return Math.round(percentile(ms, 50) * 10) / 10;
}

const store = testStore();
const nowNs = BigInt(Date.now()) * MS;
const built = performance.now();
for (let first = 0; first < SPANS; first += PER_BATCH) {
  const spans: SpanSpec[] = [];
  for (let n = first; n < Math.min(first + PER_BATCH, SPANS); n++) {
    const agoMs = DAY_MS - Math.floor((n / SPANS) * DAY_MS) + Math.floor(Math.random() * 10_000);
    spans.push({
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      startNs: nowNs - BigInt(agoMs) * MS,
      attributes: { region: `r${n % 7}`, user: `u${n % 1000}`, route: `/x${n % 20}`, ok: true },
    });
  }
  store.writeTraces(traceRequest(`svc${(first / PER_BATCH) % 5}`, spans));
}
console.log(`store: ${SPANS} spans over 24h, built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
const db = openReadConnection(store.path);
const facets = new SqliteFacets(db);
const activity = new ServiceActivity(db);
const values: FacetField = { type: "traces", field: "attribute_values", key: "region" };
const keys: FacetField = { type: "traces", field: "attribute_keys" };
const rows: Record<string, unknown>[] = [];
for (const [lookback, ms] of [
  ["15m", 900_000n],
  ["1h", 3_600_000n],
  ["24h", 86_400_000n],
] as const) {
  const window = { fromNs: nowNs - ms * MS, toNs: nowNs };
  rows.push({
    lookback,
    "values p50 ms": p50(() => facets.facets(values, window, 100)),
    "keys p50 ms": p50(() => facets.facets(keys, window, 100)),
    "values, service p50 ms": p50(() => facets.facets(values, { ...window, service: "svc1" }, 100)),
    "keys, service p50 ms": p50(() => facets.facets(keys, { ...window, service: "svc1" }, 100)),
    "services p50 ms": p50(() => activity.newest(window.fromNs, window.toNs)),
  });
}
console.table(rows);
db.close();
store.close();
