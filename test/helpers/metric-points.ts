import { blankPoint } from "../../daemon/otlp/metric-points.js";
import type { MetricBatch, MetricPointRecord, ResourceRecord, ScopeRecord } from "../../daemon/otlp/records.js";
import { JOURNAL_POINT_WIDTH, packJournalRecords } from "../../daemon/store/metric-point-journal.js";

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

/**
 * Packs points given as `metric_points` rows (series id, time, start, flags, value, count, sum,
 * min, max, detail, exemplars; JOURNAL_POINT_WIDTH values each) as the writer packs a request's
 * points into its journal row.
 */
export function packJournalRows(values: readonly unknown[], offsets: number[] = []): Buffer {
  const ids: number[] = [];
  const points: MetricPointRecord[] = [];
  const details: (string | null)[] = [];
  for (let at = 0; at < values.length; at += JOURNAL_POINT_WIDTH) {
    const row = values.slice(at, at + JOURNAL_POINT_WIDTH);
    ids.push(row[0] as number);
    points.push({
      ...blankPoint(0, 0),
      timeNs: row[1] as bigint,
      startNs: row[2] as bigint,
      flags: row[3] as number,
      value: row[4] as number | null,
      count: row[5] as number | null,
      sum: row[6] as number | null,
      min: row[7] as number | null,
      max: row[8] as number | null,
      exemplars: row[10] as string | null,
    });
    details.push(row[9] as string | null);
  }
  return packJournalRecords(ids, points, details, offsets);
}
