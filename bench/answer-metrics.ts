/**
 * The metrics of bench/query-answers.ts's store: every kind the query routes answer
 * differently (a cumulative counter with one reset, a gauge, a cumulative histogram, a
 * summary), from four of the dataset's services, a point a minute over its 24 hours, written
 * through the store's writer as obsd writes them (its rollups and packed slots included), so
 * two builds' metric answers can be compared on the same points.
 */
import { blankPoint, exemplarEntry, exemplarsJson } from "../daemon/otlp/metric-points.js";
import type { MetricBatch, MetricPointRecord, ScopeRecord } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { ROUTES, resources, SERVICES } from "./query-dataset.js";
import { hex, seededRandom } from "./span-workload.js";

/** The services that report metrics, the routes their counters and histograms are by. */
export const METRIC_SERVICES = SERVICES.slice(0, 4);
export const METRIC_ROUTES = ROUTES.slice(0, 3);
export const COUNTER = "http.server.request.count";
export const GAUGE = "process.memory.usage";
export const HISTOGRAM = "http.server.request.duration";
export const SUMMARY = "rpc.server.latency";

const MINUTE_NS = 60_000_000_000n;
const MINUTES = 24 * 60;
const BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000];
const QUANTILES = [0, 0.5, 0.9, 0.99, 1];
/** Minutes written per transaction: obsd packs closed slots between commits. */
const MINUTES_PER_COMMIT = 30;

const SCOPES: ScopeRecord[] = [
  {
    hash: "bench-meter",
    name: "bench-meter",
    version: "1.0.0",
    attributes: "{}",
    droppedAttributesCount: 0,
    schemaUrl: null,
  },
];

function point(
  name: string,
  identity: Pick<MetricPointRecord, "kind" | "unit" | "temporality" | "monotonic">,
  resource: number,
  attributes: Record<string, string>,
  timeNs: bigint,
  startNs: bigint,
): MetricPointRecord {
  const record = blankPoint(resource, 0);
  record.name = name;
  record.description = `${name} (bench)`;
  Object.assign(record, identity);
  record.attributes = JSON.stringify(attributes);
  record.indexed = Object.entries(attributes).flat();
  record.timeNs = timeNs;
  record.startNs = startNs;
  return record;
}

/** Writes the metrics into the store at `path` (closed after); returns how many points. */
export function writeAnswerMetrics(path: string, nowNs: bigint): number {
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const random = seededRandom(34);
  // The dataset's own resources for these services: the same hashes, so the same resources.
  const res = resources(METRIC_SERVICES);
  const dayStart = nowNs - BigInt(MINUTES) * MINUTE_NS;
  const counters = new Map<string, number>();
  const histograms = new Map<string, { count: number; sum: number; buckets: number[] }>();
  const memory = METRIC_SERVICES.map(() => 200_000_000);
  let points = 0;
  let batch: MetricPointRecord[] = [];
  for (let minute = 1; minute <= MINUTES; minute++) {
    const timeNs = dayStart + BigInt(minute) * MINUTE_NS;
    for (let s = 0; s < METRIC_SERVICES.length; s++) {
      // The first service restarts half way: its counters' start time moves and they begin again.
      const restarted = s === 0 && minute > MINUTES / 2;
      const startNs = restarted ? dayStart + BigInt(MINUTES / 2) * MINUTE_NS : dayStart;
      for (const route of METRIC_ROUTES) {
        const key = `${s} ${route} ${restarted}`;
        const total = (counters.get(key) ?? 0) + Math.floor(random() * 40 * (1 + s));
        counters.set(key, total);
        const counter = point(
          COUNTER,
          { kind: "sum", unit: "{request}", temporality: 2, monotonic: true },
          s,
          { "http.route": route, "http.request.method": "GET" },
          timeNs,
          startNs,
        );
        counter.value = total;
        if (minute % 97 === 0) {
          counter.exemplars = exemplarsJson([exemplarEntry(timeNs, total, hex(random, 16), hex(random, 8), {})]);
        }
        const h = histograms.get(key) ?? { count: 0, sum: 0, buckets: new Array<number>(BOUNDS.length + 1).fill(0) };
        for (let i = 0; i < 5; i++) {
          const ms = Math.floor(random() * random() * 1200);
          h.count++;
          h.sum += ms;
          const found = BOUNDS.findIndex((bound) => ms <= bound);
          const bucket = found === -1 ? BOUNDS.length : found;
          h.buckets[bucket] = (h.buckets[bucket] as number) + 1;
        }
        histograms.set(key, h);
        const histogram = point(
          HISTOGRAM,
          { kind: "histogram", unit: "ms", temporality: 2, monotonic: false },
          s,
          { "http.route": route },
          timeNs,
          startNs,
        );
        histogram.count = h.count;
        histogram.sum = h.sum;
        histogram.bounds = BOUNDS;
        histogram.bucketCounts = [...h.buckets];
        batch.push(counter, histogram);
      }
      memory[s] = Math.max(50_000_000, (memory[s] as number) + Math.floor((random() - 0.48) * 4_000_000));
      const gauge = point(GAUGE, { kind: "gauge", unit: "By", temporality: 0, monotonic: false }, s, {}, timeNs, 0n);
      gauge.value = memory[s] as number;
      const latencies = QUANTILES.map((q) => Math.round((q * 400 + random() * 20) * 10) / 10);
      const summary = point(
        SUMMARY,
        { kind: "summary", unit: "ms", temporality: 0, monotonic: false },
        s,
        { "rpc.method": "Get" },
        timeNs,
        timeNs - MINUTE_NS,
      );
      summary.count = 60;
      summary.sum = latencies.reduce((a, b) => a + b, 0) * 12;
      summary.quantiles = QUANTILES.map((q, i) => [q, latencies[i] as number]);
      batch.push(gauge, summary);
    }
    if (minute % MINUTES_PER_COMMIT === 0 || minute === MINUTES) {
      const metrics: MetricBatch = { resources: res, scopes: SCOPES, points: batch };
      writer.transaction(() => writer.writeMetrics(metrics, nowNs));
      points += batch.length;
      batch = [];
    }
  }
  writer.writeHeld();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return points;
}
