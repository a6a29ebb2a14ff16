import { decodeLogs } from "./decode-logs.js";
import { decodeTraces } from "./decode-traces.js";
import { jsonCodec, parseOtlpJson } from "./json-codec.js";
import { otlpTypes, parseOtlpProtobuf, protobufCodec } from "./protobuf-codec.js";
import type { LogBatch, SpanBatch } from "./records.js";

export type WireFormat = "json" | "protobuf";

/** Body bytes of a `POST /v1/traces` to span records. Throws PayloadError on bad input. */
export function decodeTraceRequest(body: Buffer, format: WireFormat): SpanBatch {
  if (body.length === 0) return { resources: [], scopes: [], spans: [] };
  return format === "json"
    ? decodeTraces(parseOtlpJson(body.toString("utf8")), jsonCodec)
    : decodeTraces(parseOtlpProtobuf(otlpTypes.traceRequest, body), protobufCodec);
}

/** Body bytes of a `POST /v1/logs` to log rows. Throws PayloadError on bad input. */
export function decodeLogRequest(body: Buffer, format: WireFormat): LogBatch {
  if (body.length === 0) return { resources: [], scopes: [], logs: [] };
  return format === "json"
    ? decodeLogs(parseOtlpJson(body.toString("utf8")), jsonCodec)
    : decodeLogs(parseOtlpProtobuf(otlpTypes.logsRequest, body), protobufCodec);
}
