/**
 * A batch as an OpenTelemetry Collector exports it: its batch processor sends up to 8,192 spans
 * at once (its default `send_batch_size`), and HTTP server spans carry a dozen or more
 * attributes. Used to check that such batches are accepted, and what they cost in memory.
 */
import { protobufOf } from "./fuzz-payloads.js";
import { hexId, type SpanSpec, traceRequest } from "./otlp-builders.js";

/** The Collector batch processor's default batch size. */
export const COLLECTOR_BATCH_SPANS = 8_192;

/** HTTP server span attributes (semantic conventions), then `app.attribute.N` past them. */
function serverAttributes(span: number, count: number): Record<string, string | number> {
  const route = `/api/v1/orders/${span % 50}`;
  const known: [string, string | number][] = [
    ["http.request.method", "GET"],
    ["http.route", route],
    ["http.response.status_code", 200],
    ["url.path", `${route}/items`],
    ["url.scheme", "https"],
    ["url.query", `page=${span % 9}&limit=50`],
    ["server.address", "orders.internal.example.com"],
    ["server.port", 8443],
    ["client.address", `10.0.${span % 200}.${span % 250}`],
    ["network.protocol.version", "1.1"],
    ["network.peer.address", "10.0.3.17"],
    ["network.peer.port", 40_000 + (span % 20_000)],
    ["user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0"],
    ["http.request.body.size", 512 + (span % 1024)],
    ["http.response.body.size", 2048 + (span % 4096)],
  ];
  const attributes: Record<string, string | number> = {};
  for (let i = 0; i < count; i++) {
    const [key, value] = known[i] ?? [`app.attribute.${i}`, `value-${span % 97}`];
    attributes[key] = value;
  }
  return attributes;
}

/** OTLP/JSON: `spans` server spans of `attributes` attributes each, eight spans a trace. */
export function collectorBatch(spans: number, attributes: number, nowNs: bigint, seed = 0) {
  const specs: SpanSpec[] = Array.from({ length: spans }, (_, i) => ({
    traceId: hexId(seed * 1_000_000 + Math.floor(i / 8), 16),
    spanId: hexId(i, 8),
    name: `GET /api/v1/orders/${i % 50}`,
    startNs: nowNs + BigInt(i) * 1_000n,
    durationNs: 2_500_000n,
    attributes: serverAttributes(i, attributes),
  }));
  return traceRequest("checkout", specs);
}

/** The same batch in OTLP/protobuf. */
export function collectorBatchProtobuf(spans: number, attributes: number, nowNs: bigint, seed = 0): Buffer {
  return protobufOf("traces", collectorBatch(spans, attributes, nowNs, seed));
}
