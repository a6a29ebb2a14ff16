import { blankPoint } from "../../daemon/otlp/metric-points.js";
import type { MetricBatch, MetricPointRecord, ResourceRecord, ScopeRecord } from "../../daemon/otlp/records.js";

/** A metric point record as the decoder makes it, with defaults for what a test leaves out. */
export function metricPoint(spec: Partial<MetricPointRecord> & { timeNs: bigint }): MetricPointRecord {
  const attributes = spec.attributes ?? "{}";
  const indexed =
    spec.indexed ??
    Object.entries(JSON.parse(attributes) as Record<string, unknown>).flatMap(([key, value]) => [key, String(value)]);
  return {
    ...blankPoint(0, 0),
    name: "requests",
    kind: "sum",
    temporality: 2,
    monotonic: true,
    ...spec,
    attributes,
    indexed,
  };
}

export function resourceRecord(service: string): ResourceRecord {
  return {
    hash: `resource-${service}`,
    serviceName: service,
    attributes: JSON.stringify({ "service.name": service }),
    droppedAttributesCount: 0,
    schemaUrl: null,
  };
}

const SCOPE: ScopeRecord = {
  hash: "scope-test",
  name: "test",
  version: null,
  attributes: "{}",
  droppedAttributesCount: 0,
  schemaUrl: null,
};

/** A batch of points from one service and scope. */
export function metricBatch(service: string, points: MetricPointRecord[]): MetricBatch {
  return { resources: [resourceRecord(service)], scopes: [SCOPE], points };
}
