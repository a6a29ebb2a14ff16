import { isUtf8 } from "node:buffer";
import { chargedOnce } from "./decode-allowance.js";
import { decodeLogs } from "./decode-logs.js";
import { decodeMetrics } from "./decode-metrics.js";
import { decodeTraces } from "./decode-traces.js";
import { InexactIntegerError, jsonCodec, parseOtlpJson, parseOtlpJsonLossless } from "./json-codec.js";
import { PayloadError } from "./payload-error.js";
import { decodeLogProtobuf } from "./protobuf-logs.js";
import { decodeMetricProtobuf } from "./protobuf-metrics.js";
import { decodeTraceProtobuf } from "./protobuf-traces.js";
import type { LogBatch, MetricBatch, SpanBatch } from "./records.js";

export type WireFormat = "json" | "protobuf";

/**
 * Decodes OTLP/JSON with the native parser; if a 64-bit integer came as a bare number too
 * large to be exact, decodes again from a lossless parse so no digit is lost.
 */
function decodeJson<T>(body: Buffer, decode: (request: unknown) => T): T {
  // JSON is UTF-8 (RFC 8259). Decoded leniently, a byte that is not would be stored as U+FFFD, a
  // value the sender never sent; protobuf strings that are not UTF-8 are refused too, as the
  // OpenTelemetry Collector refuses both.
  if (!isUtf8(body)) throw new PayloadError("invalid JSON: the body is not valid UTF-8");
  const text = body.toString("utf8");
  try {
    // A retry below decodes the same values again: charge them once.
    return chargedOnce(() => decode(parseOtlpJson(text)));
  } catch (error) {
    if (!(error instanceof InexactIntegerError)) throw error;
    return decode(parseOtlpJsonLossless(text));
  }
}

/** Body bytes of a `POST /v1/traces` to span records. Throws PayloadError on bad input. */
export function decodeTraceRequest(body: Buffer, format: WireFormat): SpanBatch {
  if (body.length === 0) return { resources: [], scopes: [], spans: [] };
  return format === "json"
    ? decodeJson(body, (request) => decodeTraces(request, jsonCodec))
    : decodeTraceProtobuf(body);
}

/** Body bytes of a `POST /v1/logs` to log rows. Throws PayloadError on bad input. */
export function decodeLogRequest(body: Buffer, format: WireFormat): LogBatch {
  if (body.length === 0) return { resources: [], scopes: [], logs: [] };
  return format === "json" ? decodeJson(body, (request) => decodeLogs(request, jsonCodec)) : decodeLogProtobuf(body);
}

/** Body bytes of a `POST /v1/metrics` to metric points. Throws PayloadError on bad input. */
export function decodeMetricRequest(body: Buffer, format: WireFormat): MetricBatch {
  if (body.length === 0) return { resources: [], scopes: [], points: [] };
  return format === "json"
    ? decodeJson(body, (request) => decodeMetrics(request, jsonCodec))
    : decodeMetricProtobuf(body);
}
