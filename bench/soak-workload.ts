/**
 * Fresh telemetry at a steady rate for minutes on end, without spending the load generator's
 * CPU (it shares the machine with obsd) on building protobuf for every request.
 *
 * Each template is encoded once. Every id in it starts with ID_MARK and every timestamp's high
 * 32 bits (the last four bytes of the little-endian fixed64) are TIME_MARK. `stamp` copies a
 * template and overwrites those bytes: ids with a per-request salt (so each request's spans,
 * parents and log correlations are new and stay consistent), times with the current high 32
 * bits, which places every record within the last few seconds.
 */
import { otlpTypes } from "../test/helpers/otlp-protobuf.js";
import { hex, seededRandom } from "./span-workload.js";

const ID_MARK = Buffer.from("d0d0cafe", "hex");
const TIME_MARK = 0xfeedf00d;
const TIME_MARK_BYTES = Buffer.alloc(4);
TIME_MARK_BYTES.writeUInt32LE(TIME_MARK);

const SERVICES = ["checkout", "payments", "inventory", "users"];
const ROUTES = Array.from({ length: 20 }, (_, i) => `/api/v1/resource${i}/:id`);
const METHODS = ["GET", "POST", "PUT", "DELETE"];

export interface Template {
  body: Buffer;
  records: number;
  idAt: number[];
  timeAt: number[];
}

function markedTime(random: () => number): string {
  // Low 32 bits: anywhere in the 4.3 s the high bits select, ends kept in the same window.
  const low = BigInt(Math.floor(random() * 0xe0000000));
  return ((BigInt(TIME_MARK) << 32n) | low).toString();
}

function offsetsOf(body: Buffer, mark: Buffer): number[] {
  const at: number[] = [];
  for (let i = body.indexOf(mark); i !== -1; i = body.indexOf(mark, i + mark.length)) at.push(i);
  return at;
}

function attr(key: string, value: string | number | boolean) {
  if (typeof value === "string") return { key, value: { stringValue: value } };
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  return { key, value: { intValue: value } };
}

/** A span batch: traces of 8 spans, 10 attributes each, as in bench/ingest. */
export function spanTemplate(seed: number, spans: number): Template {
  const random = seededRandom(seed);
  const service = SERVICES[seed % SERVICES.length] as string;
  const list: Record<string, unknown>[] = [];
  let traceId: Buffer = Buffer.alloc(0);
  let rootId: Buffer | null = null;
  for (let i = 0; i < spans; i++) {
    if (i % 8 === 0) {
      traceId = Buffer.concat([ID_MARK, Buffer.from(hex(random, 12), "hex")]);
      rootId = null;
    }
    const spanId = Buffer.concat([ID_MARK, Buffer.alloc(4)]);
    spanId.writeUInt32BE(seed * 100_000 + i, 4);
    const start = markedTime(random);
    const status = random() < 0.05 ? 500 : 200;
    list.push({
      traceId,
      spanId,
      ...(rootId ? { parentSpanId: rootId } : {}),
      name: rootId ? `SELECT table${i % 8}` : `${METHODS[i % 4]} ${ROUTES[i % ROUTES.length]}`,
      kind: rootId ? 3 : 2,
      startTimeUnixNano: start,
      endTimeUnixNano: (BigInt(start) + BigInt(1 + Math.floor(random() * 50_000_000))).toString(),
      attributes: [
        attr("http.request.method", METHODS[Math.floor(random() * 4)] as string),
        attr("http.route", ROUTES[Math.floor(random() * ROUTES.length)] as string),
        attr("http.response.status_code", status),
        attr("server.address", `host-${Math.floor(random() * 3)}`),
        attr("user.id", `user-${Math.floor(random() * 1000)}`),
        attr("server.port", 8000 + Math.floor(random() * 100)),
        attr("db.system", ["postgresql", "redis", "sqlite"][Math.floor(random() * 3)] as string),
        attr("feature.enabled", random() < 0.5),
        attr("request.id", `req-${seed}-${i}`),
        attr("payload.bytes", Math.floor(random() * 1_000_000)),
      ],
      status: status >= 500 ? { code: 2, message: "upstream failed" } : {},
    });
    rootId ??= spanId;
  }
  const message = otlpTypes.traceRequest.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [attr("service.name", service), attr("service.version", "1.4.2")] },
        scopeSpans: [{ scope: { name: "soak", version: "1.0.0" }, spans: list }],
      },
    ],
  });
  const body = Buffer.from(otlpTypes.traceRequest.encode(message).finish());
  return { body, records: spans, idAt: offsetsOf(body, ID_MARK), timeAt: offsetsOf(body, TIME_MARK_BYTES) };
}

/** A log batch: one in ten an error, each with a trace and span id. */
export function logTemplate(seed: number, records: number): Template {
  const random = seededRandom(seed + 7919);
  const service = SERVICES[seed % SERVICES.length] as string;
  const logs = Array.from({ length: records }, (_, i) => {
    const severe = random() < 0.1;
    const spanId = Buffer.concat([ID_MARK, Buffer.alloc(4)]);
    spanId.writeUInt32BE(seed * 100_000 + i, 4);
    return {
      timeUnixNano: markedTime(random),
      severityNumber: severe ? 17 : 9,
      severityText: severe ? "ERROR" : "INFO",
      body: { stringValue: `request ${i} handled in ${Math.floor(random() * 500)} ms` },
      attributes: [attr("http.route", ROUTES[Math.floor(random() * ROUTES.length)] as string)],
      traceId: Buffer.concat([ID_MARK, Buffer.from(hex(random, 12), "hex")]),
      spanId,
    };
  });
  const message = otlpTypes.logsRequest.fromObject({
    resourceLogs: [
      {
        resource: { attributes: [attr("service.name", service)] },
        scopeLogs: [{ scope: { name: "soak" }, logRecords: logs }],
      },
    ],
  });
  const body = Buffer.from(otlpTypes.logsRequest.encode(message).finish());
  return { body, records, idAt: offsetsOf(body, ID_MARK), timeAt: offsetsOf(body, TIME_MARK_BYTES) };
}

/** A copy of `template` with fresh ids (`salt`, unique per request) and current times. */
export function stamp(template: Template, salt: number, nowMs: number): Buffer {
  const body = Buffer.from(template.body);
  for (const at of template.idAt) body.writeUInt32BE(salt >>> 0, at);
  // High 32 bits of "a few seconds ago", so no record lies in the future.
  const high = Number((BigInt(nowMs - 5_000) * 1_000_000n) >> 32n);
  for (const at of template.timeAt) body.writeUInt32LE(high, at);
  return body;
}
