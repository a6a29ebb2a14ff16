import { isSafeNumber, parse } from "lossless-json";
import protobuf from "protobufjs";
import type { ForwardProtocol } from "../../shared/forward-settings.js";
import { packagePath } from "../../shared/package-root.js";
import { OUTBOX_FORMAT } from "../store/forward-outbox.js";

/**
 * Requests from the outbox in the encoding an upstream is sent: OTLP/protobuf (HTTP and gRPC)
 * or OTLP/JSON. Several requests of one signal become one: protobuf messages of the same type
 * concatenate into one whose repeated fields hold both (the protobuf encoding's merge rule), so
 * protobuf bodies are joined as bytes; JSON requests are joined by their top-level arrays.
 * Converting between the two uses protobufjs with the vendored OTLP definitions (schemas/otlp),
 * with OTLP/JSON's one departure from protobuf's JSON mapping: trace and span ids are hex, not
 * base64.
 */

export type ForwardSignal = "traces" | "logs" | "metrics";

interface SignalMessages {
  request: protobuf.Type;
  /** The request's one repeated field, as OTLP/JSON names it. */
  field: string;
  /** gRPC: the service's method path. */
  grpcPath: string;
  /** OTLP/HTTP: the path under the base URL. */
  httpPath: string;
}

let messages: Record<ForwardSignal, SignalMessages> | null = null;

function load(): Record<ForwardSignal, SignalMessages> {
  if (messages !== null) return messages;
  const root = new protobuf.Root();
  const protoRoot = packagePath("schemas", "otlp");
  root.resolvePath = (_origin, target) => `${protoRoot}/${target}`;
  root.loadSync(
    [
      "opentelemetry/proto/collector/trace/v1/trace_service.proto",
      "opentelemetry/proto/collector/logs/v1/logs_service.proto",
      "opentelemetry/proto/collector/metrics/v1/metrics_service.proto",
    ],
    { keepCase: false },
  );
  root.resolveAll();
  const of = (pkg: string, name: string, field: string, signal: string): SignalMessages => ({
    request: root.lookupType(`opentelemetry.proto.collector.${pkg}.v1.Export${name}ServiceRequest`),
    field,
    grpcPath: `/opentelemetry.proto.collector.${pkg}.v1.${name}Service/Export`,
    httpPath: `/v1/${signal}`,
  });
  messages = {
    traces: of("trace", "Trace", "resourceSpans", "traces"),
    logs: of("logs", "Logs", "resourceLogs", "logs"),
    metrics: of("metrics", "Metrics", "resourceMetrics", "metrics"),
  };
  return messages;
}

export function signalPaths(signal: ForwardSignal): { grpcPath: string; httpPath: string } {
  const { grpcPath, httpPath } = load()[signal];
  return { grpcPath, httpPath };
}

/** OTLP's id fields: hex in OTLP/JSON, bytes in protobuf. No other OTLP field has these names. */
const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);
const HEX = /^(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{32})$/;

/**
 * An OTLP/JSON id as bytes: hex as the specification says, else base64, which obs's decoder
 * also accepts (a 16-byte id is never 32 base64 characters, nor an 8-byte one 16).
 */
function idBytes(text: string): Buffer {
  return text === "" ? Buffer.alloc(0) : Buffer.from(text, HEX.test(text) ? "hex" : "base64");
}

/** Rewrites every id field of a parsed message in place (`to` the protobufjs form or back). */
function convertIds(value: unknown, to: "bytes" | "hex"): void {
  if (Array.isArray(value)) {
    for (const item of value) convertIds(item, to);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(record)) {
    if (ID_FIELDS.has(key) && typeof field === "string") {
      record[key] = to === "bytes" ? idBytes(field) : Buffer.from(field, "base64").toString("hex");
    } else if (typeof field === "object") {
      convertIds(field, to);
    }
  }
}

/**
 * OTLP/JSON text as objects, with integers past 2^53 kept as their exact decimal text (protobufjs
 * takes 64-bit fields as strings): `JSON.parse` would round a bare nanosecond time.
 */
function parseJson(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return parse(text, null, (value: string) => (isSafeNumber(value) ? Number(value) : value));
}

/** An OTLP/JSON request as protobuf bytes. Throws on a body that is not a JSON object. */
export function jsonToProtobuf(signal: ForwardSignal, json: Uint8Array): Uint8Array {
  const { request } = load()[signal];
  const object = parseJson(json);
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new Error("the stored OTLP/JSON request is not an object");
  }
  convertIds(object, "bytes");
  return request.encode(request.fromObject(object as Record<string, unknown>)).finish();
}

/**
 * A protobuf request as an OTLP/JSON object: int64s as decimal strings, enums as numbers,
 * non-finite doubles as "NaN" and "Infinity" (`json: true`), ids in hex.
 */
export function protobufToJson(signal: ForwardSignal, bytes: Uint8Array): Record<string, unknown> {
  const { request } = load()[signal];
  const object = request.toObject(request.decode(bytes), { longs: String, enums: Number, bytes: String, json: true });
  convertIds(object, "hex");
  return object;
}

/** One outbox row as the forwarder reads it. */
export interface OutboxRequest {
  format: number;
  body: Uint8Array;
}

/**
 * One request in the encoding `protocol` sends: protobuf bytes, or the OTLP/JSON request's one
 * array. Throws when it cannot be converted (a stored body protobufjs refuses); the caller
 * drops and counts that request alone.
 */
export function encodeFor(
  signal: ForwardSignal,
  protocol: ForwardProtocol,
  { format, body }: OutboxRequest,
): Uint8Array | unknown[] {
  if (protocol !== "http/json") return format === OUTBOX_FORMAT.json ? jsonToProtobuf(signal, body) : body;
  const { field } = load()[signal];
  const object = format === OUTBOX_FORMAT.json ? parseJson(body) : protobufToJson(signal, body);
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new Error("the stored OTLP/JSON request is not an object");
  }
  const list = (object as Record<string, unknown>)[field];
  return Array.isArray(list) ? list : [];
}

/**
 * Requests of one signal, each already encoded by `encodeFor`, as one body: protobuf messages
 * concatenated, OTLP/JSON arrays joined (large integers stay the decimal strings OTLP/JSON allows).
 */
export function join(
  signal: ForwardSignal,
  protocol: ForwardProtocol,
  parts: readonly (Uint8Array | unknown[])[],
): Buffer {
  if (protocol === "http/json") {
    const { field } = load()[signal];
    return Buffer.from(JSON.stringify({ [field]: (parts as unknown[][]).flat() }));
  }
  return Buffer.concat(parts as Uint8Array[]);
}

/** Both steps for requests known to convert (tests, benchmarks). */
export function combine(signal: ForwardSignal, protocol: ForwardProtocol, requests: readonly OutboxRequest[]): Buffer {
  return join(
    signal,
    protocol,
    requests.map((request) => encodeFor(signal, protocol, request)),
  );
}
