import type { MetricBatch, MetricPointRecord, ResourceRecord, ScopeRecord } from "../../daemon/otlp/records.js";

/** A metric point record as the decoder makes it, with defaults for what a test leaves out. */
export function metricPoint(spec: Partial<MetricPointRecord> & { timeNs: bigint }): MetricPointRecord {
  const attributes = spec.attributes ?? "{}";
  const indexed =
    spec.indexed ??
    Object.entries(JSON.parse(attributes) as Record<string, unknown>).flatMap(([key, value]) => [key, String(value)]);
  return {
    name: "requests",
    description: "",
    unit: "",
    kind: "sum",
    temporality: 2,
    monotonic: true,
    metadata: null,
    startNs: 0n,
    flags: 0,
    value: null,
    count: null,
    sum: null,
    min: null,
    max: null,
    bounds: null,
    bucketCounts: null,
    exponential: null,
    quantiles: null,
    exemplars: null,
    resource: 0,
    scope: 0,
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
