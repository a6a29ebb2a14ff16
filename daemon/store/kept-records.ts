import { identityKey } from "../otlp/identity-key.js";
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
  /** Distinct records not stored because retention would delete them at once, or they have no time. */
  rejected: number;
  /** Of those, the ones with no time at all (a metric point's timeUnixNano 0 or absent), not old ones. */
  untimed?: number;
}

/** The time retention judges a log record by: its time, else its observed time, else arrival. */
export function logTimestampNs(log: LogRecordRow, receivedNs: bigint): bigint {
  return log.timeNs > 0n ? log.timeNs : log.observedNs > 0n ? log.observedNs : receivedNs;
}

/**
 * Filters the records of one request, slice by slice, keeping a tally across the slices (a
 * repeat may sit in another slice than its first copy).
 */
export class RecordFilter<R> implements RequestFilter<R> {
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

/** What `keep` and `tally` answer for a request's records, whatever keys them (RecordFilter, PointFilter). */
export interface RequestFilter<R> {
  /** The records of `slice` to store: first copies within the request, not too old. */
  keep(slice: readonly R[]): R[];
  tally(inserted: number): RecordTally;
}

/**
 * A point's identity within a request: its series (resource, scope, metric identity, point
 * attributes) and its time, as the store keys it, so a repeat is counted once.
 *
 * The series is numbered within the request, the metric, resource and scope by their text
 * (skipped while points follow the point before in the same metric, resource and scope, as a
 * request's points come metric by metric) and the attributes by their JSON (one string per set
 * in the writer: attribute-text-crossing.ts); a series' times seen are its one time, or a set of
 * them once it has more. No key is built per point: a text key holding the time in decimal was
 * about half of what the filter cost the writer thread (docs/metrics-store.md, "Attribute runs
 * hashed as bytes").
 */
class PointFilter implements RequestFilter<MetricPointRecord> {
  private readonly attributeIds = new Map<string, number>();
  private readonly metricIds = new Map<string, number>();
  /** Per metric (by its number), the times seen per attribute set (by its number). */
  private readonly times: Map<number, bigint | Set<bigint>>[] = [];
  private last: MetricPointRecord | null = null;
  private lastMetricId = 0;
  private distinct = 0;
  private rejectedCount = 0;
  private untimedCount = 0;

  constructor(
    private readonly batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
    private readonly cutoffNs: bigint,
  ) {}

  keep(slice: readonly MetricPointRecord[]): MetricPointRecord[] {
    const kept: MetricPointRecord[] = [];
    for (const point of slice) {
      if (!this.isFirst(point)) continue;
      this.distinct++;
      // OTLP requires a point's time: one without is no point in a series, whatever the cutoff.
      if (point.timeNs === 0n) this.untimedCount++;
      if (point.timeNs < this.cutoffNs || point.timeNs === 0n) this.rejectedCount++;
      else kept.push(point);
    }
    return kept;
  }

  tally(inserted: number): RecordTally {
    const { distinct, rejectedCount, untimedCount } = this;
    const tally: RecordTally = { accepted: distinct - rejectedCount, inserted, rejected: rejectedCount };
    if (untimedCount > 0) tally.untimed = untimedCount;
    return tally;
  }

  /** Whether no point of the point's series and time came before it in the request; notes it. */
  private isFirst(point: MetricPointRecord): boolean {
    const metricId = this.metricId(point);
    let bySet = this.times[metricId];
    if (bySet === undefined) {
      bySet = new Map();
      this.times[metricId] = bySet;
    }
    const set = this.attributeId(point.attributes);
    const seen = bySet.get(set);
    const timeNs = point.timeNs;
    if (seen === undefined) {
      bySet.set(set, timeNs);
      return true;
    }
    if (typeof seen === "bigint") {
      if (seen === timeNs) return false;
      bySet.set(set, new Set([seen, timeNs]));
      return true;
    }
    if (seen.has(timeNs)) return false;
    seen.add(timeNs);
    return true;
  }

  private attributeId(attributes: string): number {
    let id = this.attributeIds.get(attributes);
    if (id === undefined) {
      id = this.attributeIds.size;
      this.attributeIds.set(attributes, id);
    }
    return id;
  }

  private metricId(point: MetricPointRecord): number {
    const last = this.last;
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
      const { resources, scopes } = this.batch;
      const key = identityKey([
        resources[point.resource]?.hash ?? "",
        scopes[point.scope]?.hash ?? "",
        point.name,
        point.kind,
        point.unit,
        point.temporality,
        point.monotonic,
      ]);
      let id = this.metricIds.get(key);
      if (id === undefined) {
        id = this.metricIds.size;
        this.metricIds.set(key, id);
      }
      this.lastMetricId = id;
      this.last = point;
    }
    return this.lastMetricId;
  }
}

export function pointFilter(
  batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
  cutoffNs: bigint,
): RequestFilter<MetricPointRecord> {
  return new PointFilter(batch, cutoffNs);
}
