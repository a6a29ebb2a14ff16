/**
 * One large, realistic trace for the MCP outline benchmark: a request fanning out over three
 * services, with HTTP handlers, database statements, cache calls, RPCs and internal steps of
 * mixed name lengths, a tree a few levels deep (each span's parent is one of the recent spans,
 * as nested calls make it) and a few failures, written straight through the store's writer.
 */
import type { ResourceRecord, ScopeRecord, SpanRecord } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { hex, seededRandom } from "./span-workload.js";

const SERVICES = ["storefront", "orders", "payments"];

const NAMES = [
  (i: number) => `GET /api/v1/cart/${i % 50}`,
  () => "POST /api/v1/orders",
  () => "SELECT orders",
  () => "INSERT order_items",
  () => "redis GET",
  () => "redis SET",
  () => "grpc payments.v1.PaymentService/Authorize",
  () => "render cart summary",
  (i: number) => `validate line item ${i % 20}`,
  () => "kafka publish order.created",
];

const SCOPE: ScopeRecord = {
  hash: "mcp-bench-scope",
  name: "bench",
  version: "1.0.0",
  attributes: "{}",
  droppedAttributesCount: 0,
  schemaUrl: null,
};

function resource(name: string): ResourceRecord {
  return {
    hash: `mcp-bench-${name}`,
    serviceName: name,
    attributes: JSON.stringify({ "service.name": name }),
    droppedAttributesCount: 0,
    schemaUrl: null,
  };
}

/** Writes a trace of `spanCount` spans ending about a minute before `nowNs`; returns its id. */
export function writeLargeTrace(path: string, spanCount: number, nowNs: bigint): string {
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const random = seededRandom(7);
  const traceId = hex(random, 16);
  const traceStart = nowNs - 120_000_000_000n;
  const spans: SpanRecord[] = [];
  const starts: bigint[] = [];
  for (let i = 0; i < spanCount; i++) {
    // A parent among the last few spans: nested calls, a tree a handful of levels deep.
    const parentIndex = i === 0 ? -1 : Math.max(0, i - 1 - Math.floor(random() * 8));
    const parent = parentIndex < 0 ? undefined : spans[parentIndex];
    const startNs = parent ? (starts[parentIndex] as bigint) + BigInt(Math.floor(random() * 5_000_000)) : traceStart;
    const durationNs = BigInt(Math.floor(50_000 + random() * random() * 40_000_000));
    const failed = random() < 0.02;
    const name = (NAMES[Math.floor(random() * NAMES.length)] as (i: number) => string)(i);
    const attributes = { "http.route": "/api/v1/cart", "bench.index": i };
    spans.push({
      traceId,
      spanId: hex(random, 8),
      parentSpanId: parent?.spanId ?? null,
      traceState: null,
      flags: 1,
      name,
      kind: i === 0 ? 2 : 1,
      startNs,
      endNs: startNs + durationNs,
      statusCode: failed ? 2 : 0,
      statusMessage: failed ? "deadline exceeded" : null,
      attributes: JSON.stringify(attributes),
      indexed: Object.entries(attributes).flatMap(([key, value]) => [key, String(value)]),
      events: null,
      links: null,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      resource: i === 0 ? 0 : Math.floor(random() * SERVICES.length),
      scope: 0,
    });
    starts.push(startNs);
  }
  const resources = SERVICES.map(resource);
  for (let from = 0; from < spans.length; from += 1000) {
    const batch = { resources, scopes: [SCOPE], spans: spans.slice(from, from + 1000) };
    writer.transaction(() => writer.writeSpans(batch, nowNs));
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return traceId;
}
