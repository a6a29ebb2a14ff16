/**
 * The benchmark workload: traces of 8 spans, each span with 10 attributes of realistic
 * cardinality (two of them unique per span), in OTLP/JSON and OTLP/protobuf.
 */
import { otlpTypes } from "../test/helpers/otlp-protobuf.js";

export const SPANS_PER_BATCH = 512;
export const SPANS_PER_TRACE = 8;

/** mulberry32: a small seeded PRNG so every run sends the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ["GET", "POST", "PUT", "DELETE"];
const ROUTES = Array.from({ length: 20 }, (_, i) => `/api/v1/resource${i}/:id`);
const STATUS = [200, 200, 200, 201, 204, 404, 500];
const SERVICES = ["checkout", "payments", "inventory", "users"];

/** `bytes` random bytes as lowercase hex. */
export function hex(random: () => number, bytes: number): string {
  let out = "";
  for (let i = 0; i < bytes; i++)
    out += Math.floor(random() * 256)
      .toString(16)
      .padStart(2, "0");
  return out;
}

export interface Workload {
  json: Buffer[];
  protobuf: Buffer[];
  spans: number;
}

/** `batches` requests of 512 spans, timestamps spread over the last minute before `nowNs`. */
export function makeWorkload(batches: number, seed: number, nowNs: bigint): Workload {
  const random = seededRandom(seed);
  const json: Buffer[] = [];
  const protobuf: Buffer[] = [];
  let sequence = 0;
  for (let b = 0; b < batches; b++) {
    const service = SERVICES[b % SERVICES.length] as string;
    const spans: Record<string, unknown>[] = [];
    let traceId = "";
    let rootId = "";
    for (let i = 0; i < SPANS_PER_BATCH; i++) {
      if (i % SPANS_PER_TRACE === 0) {
        traceId = hex(random, 16);
        rootId = "";
      }
      const spanId = hex(random, 8);
      const start = nowNs - BigInt(Math.floor(random() * 60_000)) * 1_000_000n;
      const status = STATUS[Math.floor(random() * STATUS.length)] as number;
      sequence++;
      spans.push({
        traceId,
        spanId,
        ...(rootId ? { parentSpanId: rootId } : {}),
        name: rootId ? `SELECT table${i % 8}` : `${METHODS[i % 4]} ${ROUTES[Math.floor(random() * ROUTES.length)]}`,
        kind: rootId ? 3 : 2,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + BigInt(1 + Math.floor(random() * 50_000_000))).toString(),
        attributes: [
          { key: "http.request.method", value: { stringValue: METHODS[Math.floor(random() * 4)] } },
          { key: "http.route", value: { stringValue: ROUTES[Math.floor(random() * ROUTES.length)] } },
          { key: "http.response.status_code", value: { intValue: String(status) } },
          { key: "server.address", value: { stringValue: `host-${Math.floor(random() * 3)}` } },
          { key: "user.id", value: { stringValue: `user-${Math.floor(random() * 1000)}` } },
          { key: "server.port", value: { intValue: String(8000 + Math.floor(random() * 100)) } },
          { key: "db.system", value: { stringValue: ["postgresql", "redis", "sqlite"][Math.floor(random() * 3)] } },
          { key: "feature.enabled", value: { boolValue: random() < 0.5 } },
          { key: "request.id", value: { stringValue: `req-${seed}-${sequence}` } },
          { key: "payload.bytes", value: { intValue: String(Math.floor(random() * 1_000_000)) } },
        ],
        status: status >= 500 ? { code: 2, message: "upstream failed" } : {},
      });
      if (!rootId) rootId = spanId;
    }
    const request = {
      resourceSpans: [
        {
          resource: {
            attributes: [
              { key: "service.name", value: { stringValue: service } },
              { key: "service.version", value: { stringValue: "1.4.2" } },
              { key: "telemetry.sdk.language", value: { stringValue: "nodejs" } },
            ],
          },
          scopeSpans: [{ scope: { name: "bench", version: "1.0.0" }, spans }],
        },
      ],
    };
    json.push(Buffer.from(JSON.stringify(request)));
    const proto = otlpTypes.traceRequest.fromObject({
      resourceSpans: request.resourceSpans.map((rs) => ({
        ...rs,
        scopeSpans: rs.scopeSpans.map((ss) => ({
          ...ss,
          spans: ss.spans.map((s) => ({
            ...s,
            traceId: Buffer.from(s.traceId as string, "hex"),
            spanId: Buffer.from(s.spanId as string, "hex"),
            ...(s.parentSpanId ? { parentSpanId: Buffer.from(s.parentSpanId as string, "hex") } : {}),
          })),
        })),
      })),
    });
    protobuf.push(Buffer.from(otlpTypes.traceRequest.encode(proto).finish()));
  }
  return { json, protobuf, spans: batches * SPANS_PER_BATCH };
}
