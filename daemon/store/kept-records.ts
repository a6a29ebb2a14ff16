import type { LogRecordRow, MetricPointRecord, ResourceRecord, ScopeRecord, SpanRecord } from "../otlp/records.js";

/**
 * Which records of a write request are stored, and what its answer counts.
 *
 * - A record that age-based retention would delete at its next pass is not stored: it is
 *   rejected, and the answer says so (OTLP partial success) instead of acknowledging data that
 *   is gone seconds later. The test is retention's own (span start, log timestamp, point time).
 * - A record sent twice in one request is one record, as it is across requests (spans by trace
 *   and span id, logs by content hash, metric points by series and time), so `accepted` counts
 *   each once: stored now or already there. The first copy is the one kept, as the writer keeps
 *   the first copy ever sent.
 */
export interface RecordTally {
  /** Distinct records kept: stored now, or already stored by an earlier request. */
  accepted: number;
  /** Of those, stored now. */
  inserted: number;
  /** Distinct records not stored because retention would delete them at once. */
  rejected: number;
}

/** The time retention judges a log record by: its time, else its observed time, else arrival. */
export function logTimestampNs(log: LogRecordRow, receivedNs: bigint): bigint {
  return log.timeNs > 0n ? log.timeNs : log.observedNs > 0n ? log.observedNs : receivedNs;
}

/**
 * Filters the records of one request, slice by slice, keeping a tally across the slices (a
 * repeat may sit in another slice than its first copy).
 */
export class RecordFilter<R> {
  private readonly seen = new Set<string>();
  private rejectedCount = 0;

  constructor(
    private readonly keyOf: (record: R) => string,
    private readonly expired: (record: R) => boolean,
  ) {}

  /** The records of `slice` to store: first copies within the request, not too old. */
  keep(slice: readonly R[]): R[] {
    const kept: R[] = [];
    for (const record of slice) {
      const key = this.keyOf(record);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      if (this.expired(record)) this.rejectedCount++;
      else kept.push(record);
    }
    return kept;
  }

  tally(inserted: number): RecordTally {
    return { accepted: this.seen.size - this.rejectedCount, inserted, rejected: this.rejectedCount };
  }
}

export function spanFilter(cutoffNs: bigint): RecordFilter<SpanRecord> {
  return new RecordFilter(
    (span) => span.traceId + span.spanId,
    (span) => span.startNs < cutoffNs,
  );
}

export function logFilter(cutoffNs: bigint, receivedNs: bigint): RecordFilter<LogRecordRow> {
  return new RecordFilter(
    // The hash covers the record's times, so it alone is the record's identity.
    (log) => Buffer.from(log.hash).toString("latin1"),
    (log) => logTimestampNs(log, receivedNs) < cutoffNs,
  );
}

/**
 * A point's identity within a request: its series (resource, scope, metric identity, point
 * attributes) and its time, as the store keys it, so a repeat is counted once.
 */
export function pointFilter(
  batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
  cutoffNs: bigint,
): RecordFilter<MetricPointRecord> {
  // The key holds numbers for the long parts. The attributes' JSON is numbered by its text
  // (hashing it here also leaves its hash cached on the string for the writer's series lookup);
  // the rest of the series by its text too, skipped while points follow the point before in
  // the same metric, resource and scope, as a request's points come metric by metric.
  const attributeIds = new Map<string, number>();
  const attributeId = (attributes: string): number => {
    let id = attributeIds.get(attributes);
    if (id === undefined) {
      id = attributeIds.size;
      attributeIds.set(attributes, id);
    }
    return id;
  };
  const metricIds = new Map<string, number>();
  let last: MetricPointRecord | null = null;
  let lastMetricId = 0;
  const metricId = (point: MetricPointRecord): number => {
    if (
      last === null ||
      last.resource !== point.resource ||
      last.scope !== point.scope ||
      last.name !== point.name ||
      last.kind !== point.kind ||
      last.unit !== point.unit ||
      last.temporality !== point.temporality ||
      last.monotonic !== point.monotonic
    ) {
      const key = `${batch.resources[point.resource]?.hash}\0${batch.scopes[point.scope]?.hash}\0${point.name}\0${point.kind}\0${point.unit}\0${point.temporality}\0${point.monotonic}`;
      let id = metricIds.get(key);
      if (id === undefined) {
        id = metricIds.size;
        metricIds.set(key, id);
      }
      lastMetricId = id;
      last = point;
    }
    return lastMetricId;
  };
  return new RecordFilter(
    (point) => `${metricId(point)}:${attributeId(point.attributes)}:${point.timeNs}`,
    (point) => point.timeNs < cutoffNs,
  );
}
