import { type AuditFacts, type AuditWindow, emptyFacts } from "../../../daemon/audit/audit-model.js";
import type {
  FacetField,
  FacetValue,
  LogFilter,
  LogGroupBy,
  LogQuery,
  MetricBucketQuery,
  MetricGroupValues,
  MetricIdentity,
  MetricListQuery,
  MetricScope,
  PageRequest,
  PageResult,
  SpanQuery,
  StatsRow,
  TelemetryReader,
  TraceAgg,
  TraceDetail,
  TraceFilter,
  TraceGroupBy,
  TraceQuery,
  TraceSpanPage,
} from "../../../daemon/query/telemetry-reader.js";
import type { LogRecord, SpanRecord, TraceSummary } from "../../../shared/api-records.js";
import type { MetricDetailRecord, MetricSummaryRecord } from "../../../shared/query-types.js";

const MS = 1_000_000n;

/** A span with the fields the query service and the span tree read; the rest are defaults. */
export function span(traceId: string, spanId: string, startNs: bigint, parentSpanId: string | null = null): SpanRecord {
  return {
    traceId,
    spanId,
    parentSpanId,
    serviceName: "shop",
    operation: `op-${spanId.slice(-2)}`,
    kind: "internal",
    startTime: new Date(Number(startNs / MS)).toISOString(),
    endTime: new Date(Number(startNs / MS) + 1).toISOString(),
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(startNs + MS),
    durationNs: 1_000_000,
    status: { code: "unset", message: null },
    attributes: { n: spanId },
    events: [],
    links: [],
    resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    scope: { name: "s", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    traceState: null,
    flags: 0,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

export function log(logId: string, timeNs: bigint, traceId: string | null, spanId: string | null): LogRecord {
  return {
    logId,
    timestamp: new Date(Number(timeNs / MS)).toISOString(),
    time: null,
    observedTime: null,
    severityNumber: 9,
    severityText: null,
    body: logId,
    attributes: {},
    traceId,
    spanId,
    serviceName: "shop",
    resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    scope: { name: "s", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    flags: 0,
    eventName: null,
    droppedAttributesCount: 0,
  };
}

/** One page, newest first, of items keyed by (ns, id), inside the page's window. */
function pageOf<T>(items: { ns: bigint; id: string; item: T }[], page: PageRequest): PageResult<T> {
  const sorted = items
    .filter(({ ns }) => ns >= page.fromNs && ns <= page.toNs)
    .filter(({ ns, id }) => !page.after || ns < page.after.ns || (ns === page.after.ns && id < page.after.id))
    .sort((a, b) => (a.ns === b.ns ? (a.id < b.id ? 1 : -1) : a.ns < b.ns ? 1 : -1));
  const kept = sorted.slice(0, page.limit);
  const last = kept[kept.length - 1];
  return {
    items: kept.map(({ item }) => item),
    more: sorted.length > page.limit,
    last: last ? { ns: last.ns, id: last.id } : null,
  };
}

/**
 * An in-memory TelemetryReader over a few spans and logs, recording the arguments of each
 * call so a test can check the windows, limits and filters the service asked for.
 */
export class FakeReader implements TelemetryReader {
  readonly calls: { method: string; args: unknown[] }[] = [];
  spans_: SpanRecord[] = [];
  logs_: LogRecord[] = [];
  traceSummaries: TraceSummary[] = [];
  statsRows: StatsRow[] = [{ group: "shop", value: 3, count: 3 }];
  facetValues: FacetValue[] = [];
  metricList: MetricSummaryRecord[] = [];
  identities: MetricIdentity[] = [];
  metricDetail: MetricDetailRecord | null = null;
  bucketGroups: MetricGroupValues[] = [];

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }

  /** The arguments of the last call of `method`. */
  last(method: string): unknown[] {
    const call = [...this.calls].reverse().find((c) => c.method === method);
    if (!call) throw new Error(`${method} was not called`);
    return call.args;
  }

  services(window: { fromNs: bigint; toNs: bigint }) {
    this.record("services", window);
    return [{ name: "shop", lastSeenAt: "2026-11-22T10:00:00.000000000Z" }];
  }

  traces(query: TraceQuery): PageResult<TraceSummary> {
    this.record("traces", query);
    return pageOf(
      this.traceSummaries.map((t) => ({ ns: BigInt(Date.parse(t.startTime)) * MS, id: t.traceId, item: t })),
      query.page,
    );
  }

  trace(traceId: string, page: TraceSpanPage = { limit: 10_000 }): TraceDetail | null {
    this.record("trace", traceId, page);
    const spans = this.spans_
      .filter((s) => s.traceId === traceId)
      .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
    if (spans.length === 0) return null;
    const after = page.after;
    const rest = after ? spans.filter((s) => BigInt(s.startTimeUnixNano) > after.ns) : spans;
    const kept = rest.slice(0, page.limit);
    const lastSpan = kept[kept.length - 1];
    const summary = { traceId, spanCount: spans.length } as TraceSummary;
    return {
      summary,
      spans: kept,
      more: rest.length > page.limit,
      last: lastSpan ? { ns: BigInt(lastSpan.startTimeUnixNano), id: lastSpan.spanId } : null,
    };
  }

  storedSpanIds(traceId: string, spanIds: string[]): Set<string> {
    this.record("storedSpanIds", traceId, spanIds);
    return new Set(this.spans_.filter((s) => s.traceId === traceId && spanIds.includes(s.spanId)).map((s) => s.spanId));
  }

  spans(query: SpanQuery): PageResult<SpanRecord> {
    this.record("spans", query);
    return pageOf(
      this.spans_.map((s) => ({ ns: BigInt(s.startTimeUnixNano), id: s.spanId, item: s })),
      query.page,
    );
  }

  span(spanId: string): SpanRecord[] {
    this.record("span", spanId);
    return this.spans_.filter((s) => s.spanId === spanId);
  }

  logs(query: LogQuery): PageResult<LogRecord> {
    this.record("logs", query);
    const matching = this.logs_.filter(
      (l) =>
        (query.traceId === undefined || l.traceId === query.traceId) &&
        (query.spanId === undefined || l.spanId === query.spanId),
    );
    return pageOf(
      matching.map((l) => ({ ns: BigInt(Date.parse(l.timestamp)) * MS, id: l.logId, item: l })),
      query.page,
    );
  }

  traceStats(filter: TraceFilter, groupBy: TraceGroupBy, agg: TraceAgg): StatsRow[] {
    this.record("traceStats", filter, groupBy, agg);
    return this.statsRows;
  }

  logStats(filter: LogFilter, groupBy: LogGroupBy): StatsRow[] {
    this.record("logStats", filter, groupBy);
    return this.statsRows;
  }

  facets(field: FacetField, window: { fromNs: bigint; toNs: bigint; service?: string }, limit: number): FacetValue[] {
    this.record("facets", field, window, limit);
    return this.facetValues.slice(0, limit);
  }

  auditFacts(window: AuditWindow): AuditFacts {
    this.record("auditFacts", window);
    return emptyFacts();
  }

  metrics(query: MetricListQuery): PageResult<MetricSummaryRecord> {
    this.record("metrics", query);
    const after = query.page.after;
    const rest = this.metricList.filter((m) => !after || m.name > after.id);
    const kept = rest.slice(0, query.page.limit);
    const lastItem = kept[kept.length - 1];
    return { items: kept, more: rest.length > kept.length, last: lastItem ? { ns: 0n, id: lastItem.name } : null };
  }

  metricIdentities(name: string): MetricIdentity[] {
    this.record("metricIdentities", name);
    return this.identities.filter((m) => m.name === name);
  }

  describeMetric(scope: MetricScope, maxKeys: number, maxValues: number): MetricDetailRecord | null {
    this.record("describeMetric", scope, maxKeys, maxValues);
    return this.metricDetail;
  }

  /** What `metricInterval` answers (null: no series exported twice). */
  interval: number | null = null;

  metricInterval(scope: MetricScope): number | null {
    this.record("metricInterval", scope);
    return this.interval;
  }

  metricBuckets(query: MetricBucketQuery): MetricGroupValues[] {
    this.record("metricBuckets", query);
    return this.bucketGroups.map((g) => ({ ...g, values: [...g.values] }));
  }
}
