import type { LogRecord, ServiceRecord, SpanRecord, TraceSummary } from "../../shared/api-records.js";
import type { AuditFacts, AuditWindow } from "../audit/audit-model.js";

/** The time window of a query and where the previous page stopped. */
export interface PageRequest {
  fromNs: bigint;
  toNs: bigint;
  limit: number;
  /** Sort key of the last item of the previous page; absent on the first page. */
  after?: { ns: bigint; id: string };
}

/** A page of items, newest first, and the sort key of its last item. */
export interface PageResult<T> {
  items: T[];
  /** More items match beyond this page. */
  more: boolean;
  last: { ns: bigint; id: string } | null;
}

export interface TraceQuery {
  service?: string;
  status?: "ok" | "error";
  operation?: string;
  durationMinMs?: number;
  attrs: [string, string][];
  page: PageRequest;
}

export interface SpanQuery {
  service?: string;
  traceId?: string;
  operation?: string;
  parentOperation?: string;
  status?: "ok" | "error";
  attrs: [string, string][];
  attrContains: [string, string][];
  page: PageRequest;
}

export interface LogQuery {
  service?: string;
  severity?: string;
  traceId?: string;
  spanId?: string;
  contains?: string;
  attrs: [string, string][];
  attrContains: [string, string][];
  page: PageRequest;
}

export type TraceGroupBy = "service" | "operation" | "status" | { attr: string };
export type TraceAgg = "count" | "avg_duration" | "p95_duration" | "error_rate";
export type LogGroupBy = "service" | "severity" | "scope" | { attr: string };

/** Trace filters without paging, for aggregates. */
export type TraceFilter = Omit<TraceQuery, "page"> & { fromNs: bigint; toNs: bigint };
export type LogFilter = Omit<LogQuery, "page"> & { fromNs: bigint; toNs: bigint };

/** One group of an aggregate: its key (null when the traces have no value for it) and value. */
export interface StatsRow {
  group: string | null;
  value: number;
  /** How many traces or log records the group holds. */
  count: number;
}

export type FacetField =
  | { type: "traces"; field: "service" | "operation" | "status" | "attribute_keys" }
  | { type: "traces"; field: "attribute_values"; key: string }
  | { type: "logs"; field: "service" | "severity" | "scope" };

export interface FacetValue {
  value: string;
  count: number;
}

/** The most spans one answer about a trace holds; the rest are paged (/api/traces/:id/spans). */
export const MAX_TRACE_SPANS = 10_000;

/** Which of a trace's spans to read: in start order (then span id), after `after`, at most `limit`. */
export interface TraceSpanPage {
  limit: number;
  after?: { ns: bigint; id: string };
}

export interface TraceDetail {
  summary: TraceSummary;
  /** One page of the trace's spans, in start order (then span id). */
  spans: SpanRecord[];
  /** More spans follow this page. */
  more: boolean;
  /** Sort key of the page's last span. */
  last: { ns: bigint; id: string } | null;
}

/**
 * Everything the query API reads, behind one interface: the HTTP handlers know nothing of
 * SQL, and the implementation can run in a worker thread.
 */
export interface TelemetryReader {
  /** Services with a span or log whose own timestamp is in the window, last seen at the newest. */
  services(window: { fromNs: bigint; toNs: bigint }): ServiceRecord[];
  traces(query: TraceQuery): PageResult<TraceSummary>;
  /** A trace's summary and one page of its spans (by default the first MAX_TRACE_SPANS); null if unknown. */
  trace(traceId: string, page?: TraceSpanPage): TraceDetail | null;
  /** Which of these span ids the trace has stored. */
  storedSpanIds(traceId: string, spanIds: string[]): Set<string>;
  spans(query: SpanQuery): PageResult<SpanRecord>;
  span(spanId: string): SpanRecord[];
  logs(query: LogQuery): PageResult<LogRecord>;
  traceStats(filter: TraceFilter, groupBy: TraceGroupBy, agg: TraceAgg): StatsRow[];
  logStats(filter: LogFilter, groupBy: LogGroupBy): StatsRow[];
  facets(field: FacetField, window: { fromNs: bigint; toNs: bigint; service?: string }, limit: number): FacetValue[];
  /** The bounded facts the audit rules judge (daemon/audit). */
  auditFacts(window: AuditWindow): AuditFacts;
}
