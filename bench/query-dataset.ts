/**
 * The query benchmark's store: traces of 5 spans and log records spread evenly over the last
 * 24 hours, written straight through the store's writer (what ingestion would store).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { LogBatch, ResourceRecord, ScopeRecord, SpanBatch, SpanRecord } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { PostingPacker } from "../daemon/store/posting-packer.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { hex, seededRandom } from "./span-workload.js";

export const SERVICES = ["checkout", "payments", "inventory", "users", "search", "shipping", "email", "gateway"];
export const ROUTES = Array.from({ length: 10 }, (_, i) => `/api/v1/r${i}`);
const REGIONS = ["eu-west", "eu-north", "us-east", "us-west", "ap-south"];
const SEVERITIES: [number, string][] = [
  [9, "INFO"],
  [9, "INFO"],
  [9, "INFO"],
  [5, "DEBUG"],
  [13, "WARN"],
  [17, "ERROR"],
];
const DAY_NS = 86_400_000_000_000n;

/** The dataset's resources, one per service (by default all of SERVICES), keyed by their name. */
export function resources(services: readonly string[] = SERVICES): ResourceRecord[] {
  return services.map((name) => ({
    hash: `bench-${name}`,
    serviceName: name,
    attributes: JSON.stringify({ "service.name": name }),
    droppedAttributesCount: 0,
    schemaUrl: null,
  }));
}

const SCOPES: ScopeRecord[] = [
  {
    hash: "bench-scope",
    name: "bench",
    version: "1.0.0",
    attributes: "{}",
    droppedAttributesCount: 0,
    schemaUrl: null,
  },
];

function attributes(object: Record<string, string | number | boolean>): { json: string; indexed: string[] } {
  const indexed: string[] = [];
  for (const [key, value] of Object.entries(object)) indexed.push(key, String(value));
  return { json: JSON.stringify(object), indexed };
}

export interface DatasetInfo {
  spans: number;
  traces: number;
  logs: number;
  /** A trace of exactly 200 spans, for the detail query. */
  bigTraceId: string;
}

/** Writes the dataset into a new database at `path`; `onProgress` gets a fraction done. */
export function buildQueryDataset(
  path: string,
  traces: number,
  logs: number,
  nowNs: bigint,
  onProgress: (done: number) => void = () => {},
  options: { packPostings?: boolean } = {},
): DatasetInfo {
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  // obsd's writer packs each posting bucket its commits fill (posting-packer.ts), between them;
  // `packPostings: false` leaves them as the writer writes them.
  const packer = new PostingPacker(db, writer.hashedKeys);
  const pack = () => {
    while (options.packPostings !== false && packer.packNext()) {}
  };
  const random = seededRandom(42);
  const res = resources();
  let spanCount = 0;
  const batchTraces = 100;
  for (let t = 0; t < traces; t += batchTraces) {
    const spans: SpanRecord[] = [];
    for (let k = t; k < Math.min(traces, t + batchTraces); k++) {
      const traceId = hex(random, 16);
      const start = nowNs - DAY_NS + (DAY_NS * BigInt(k)) / BigInt(traces);
      const service = Math.floor(random() * SERVICES.length);
      const route = ROUTES[Math.floor(random() * ROUTES.length)] as string;
      const error = random() < 0.05;
      const total = BigInt(Math.floor(1_000_000 + random() * random() * 900_000_000));
      let parent: string | null = null;
      for (let s = 0; s < 5; s++) {
        const spanId = hex(random, 8);
        const startNs = start + (total * BigInt(s)) / 10n;
        const attrs = attributes({
          "http.route": route,
          "http.request.method": s === 0 ? "GET" : "POST",
          "http.response.status_code": error && s === 4 ? 500 : 200,
          "user.id": `user-${Math.floor(random() * 1000)}`,
          "cloud.region": REGIONS[Math.floor(random() * REGIONS.length)] as string,
          "request.id": `req-${k}-${s}`,
        });
        spans.push({
          traceId,
          spanId,
          parentSpanId: parent,
          traceState: null,
          flags: 1,
          name: s === 0 ? `GET ${route}` : `step-${s}`,
          kind: s === 0 ? 2 : 1,
          startNs,
          endNs: startNs + total / BigInt(s + 1),
          statusCode: error && s === 4 ? 2 : 0,
          statusMessage: error && s === 4 ? "upstream timeout" : null,
          attributes: attrs.json,
          indexed: attrs.indexed,
          events: null,
          links: null,
          droppedAttributesCount: 0,
          droppedEventsCount: 0,
          droppedLinksCount: 0,
          resource: s < 3 ? service : (service + 1) % SERVICES.length,
          scope: 0,
        });
        parent = spanId;
      }
    }
    spanCount += spans.length;
    const batch: SpanBatch = { resources: res, scopes: SCOPES, spans };
    writer.transaction(() => writer.writeSpans(batch, nowNs));
    pack();
    if (t % 20_000 === 0) onProgress(t / traces / 2);
  }
  // One trace of exactly 200 spans, an hour ago.
  const bigTraceId = hex(random, 16);
  const bigStart = nowNs - 3_600_000_000_000n;
  const big: SpanRecord[] = [];
  for (let s = 0; s < 200; s++) {
    const attrs = attributes({ "http.route": "/api/v1/big", step: s });
    big.push({
      traceId: bigTraceId,
      spanId: hex(random, 8),
      parentSpanId: s === 0 ? null : (big[Math.floor((s - 1) / 3)] as SpanRecord).spanId,
      traceState: null,
      flags: 1,
      name: s === 0 ? "GET /api/v1/big" : `work-${s}`,
      kind: 1,
      startNs: bigStart + BigInt(s) * 1_000_000n,
      endNs: bigStart + BigInt(s) * 1_000_000n + 500_000n,
      statusCode: 0,
      statusMessage: null,
      attributes: attrs.json,
      indexed: attrs.indexed,
      events: null,
      links: null,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      resource: 0,
      scope: 0,
    });
  }
  writer.transaction(() => writer.writeSpans({ resources: res, scopes: SCOPES, spans: big }, nowNs));
  pack();
  spanCount += 200;

  const batchLogs = 1000;
  for (let l = 0; l < logs; l += batchLogs) {
    const rows: LogBatch["logs"] = [];
    for (let k = l; k < Math.min(logs, l + batchLogs); k++) {
      const [number, text] = SEVERITIES[Math.floor(random() * SEVERITIES.length)] as [number, string];
      const timeNs = nowNs - DAY_NS + (DAY_NS * BigInt(k)) / BigInt(logs);
      const timeout = random() < 0.01;
      const attrs = attributes({
        "log.logger": `logger-${k % 20}`,
        "cloud.region": REGIONS[k % 5] as string,
        "request.id": `req-${k}`,
      });
      rows.push({
        hash: Buffer.from(hex(random, 20), "hex"),
        timeNs,
        observedNs: timeNs,
        severityNumber: number,
        severityText: text,
        body: JSON.stringify(timeout ? `upstream timeout after ${k % 900} ms` : `handled request ${k} in ${k % 97} ms`),
        attributes: attrs.json,
        indexed: attrs.indexed,
        traceId: random() < 0.5 ? hex(random, 16) : null,
        spanId: null,
        flags: 0,
        eventName: null,
        droppedAttributesCount: 0,
        resource: k % SERVICES.length,
        scope: 0,
      });
    }
    writer.transaction(() => writer.writeLogs({ resources: res, scopes: SCOPES, logs: rows }, nowNs));
    pack();
    if (l % 100_000 === 0) onProgress(0.5 + l / logs / 2);
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { spans: spanCount, traces: traces + 1, logs, bigTraceId };
}

/**
 * The dataset at `dbPath`: reused when BENCH_DB names a store built earlier (with its
 * `.json` info file beside it), else built now and described in that file.
 */
export function loadOrBuildDataset(
  bench: string,
  dbPath: string,
  traces: number,
  logs: number,
  options: { packPostings?: boolean } = {},
): DatasetInfo {
  const infoPath = `${dbPath}.json`;
  if (process.env.BENCH_DB && existsSync(dbPath) && existsSync(infoPath)) {
    const info = JSON.parse(readFileSync(infoPath, "utf8")) as DatasetInfo;
    console.log(`${bench}: reusing ${dbPath} (${info.spans} spans, ${info.logs} logs)`);
    return info;
  }
  console.log(`${bench}: building ${traces} traces (x5 spans) and ${logs} logs over 24h ...`);
  const started = performance.now();
  const info = buildQueryDataset(
    dbPath,
    traces,
    logs,
    BigInt(Date.now()) * 1_000_000n,
    (done) => process.stdout.write(`  ${Math.round(done * 100)}%\r`),
    options,
  );
  writeFileSync(infoPath, JSON.stringify(info));
  console.log(
    `built ${info.spans} spans, ${info.logs} logs in ${Math.round((performance.now() - started) / 100) / 10} s`,
  );
  return info;
}
