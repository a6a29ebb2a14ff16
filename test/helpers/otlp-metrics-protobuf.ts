import { readFileSync } from "node:fs";
import protobuf from "protobufjs";
import { decodeMetrics } from "../../daemon/otlp/decode-metrics.js";
import { jsonCodec } from "../../daemon/otlp/json-codec.js";
import type { MetricBatch } from "../../daemon/otlp/records.js";
import { packagePath } from "../../shared/package-root.js";

const PROTO_ROOT = packagePath("schemas", "otlp");

/**
 * The official OTLP metrics definitions, loaded from `schemas/otlp`, for tests that build
 * OTLP/protobuf metrics bodies and check obsd's reader against protobufjs's.
 */
function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => `${PROTO_ROOT}/${target}`;
  root.loadSync("opentelemetry/proto/collector/metrics/v1/metrics_service.proto", { keepCase: false });
  root.resolveAll();
  return root;
}

const root = loadRoot();

export const metricsTypes = {
  root,
  request: root.lookupType("opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest"),
};

/** The OTLP specification's metrics example (opentelemetry-proto's examples/metrics.json). */
export function metricsFixture(): string {
  return readFileSync(packagePath("test", "fixtures", "otlp", "metrics.json"), "utf8");
}

/** Encodes a request given as a protobufjs plain object (ids as Buffers, 64-bit integers as decimal text). */
export function encodeMetrics(object: Record<string, unknown>): Buffer {
  const message = metricsTypes.request.fromObject(object);
  return Buffer.from(metricsTypes.request.encode(message).finish());
}

/**
 * The reference a protobuf body's records are checked against: protobufjs decodes the body
 * into its own message, turned into OTLP/JSON's object form (64-bit integers as decimal text,
 * bytes as base64, enums as numbers, only the fields sent), which the OTLP/JSON walker decodes.
 */
export function referenceMetrics(body: Uint8Array): MetricBatch {
  const message = metricsTypes.request.decode(body);
  const object = metricsTypes.request.toObject(message, { longs: String, bytes: String, enums: Number });
  return decodeMetrics(object, jsonCodec);
}
