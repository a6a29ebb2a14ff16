import type { LogRecord, ServiceRecord, SpanRecord, TraceSummary } from "../../shared/api-records.js";
import type {
  LogGroupBy,
  MetricAgg,
  MetricDetailRecord,
  MetricGroupBy,
  MetricSummaryRecord,
  TraceAgg,
  TraceGroupBy,
} from "../../shared/query-types.js";
import type { AuditFacts, AuditWindow } from "../audit/audit-model.js";

export { MAX_TRACE_SPANS } from "../../shared/query-routes.js";
export type { LogGroupBy, TraceAgg, TraceGroupBy };

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
  | { type: "logs"; field: "service" | "severity" | "scope" }
  | { type: "metrics"; field: "name" | "service" | "attribute_keys" }
  | { type: "metrics"; field: "attribute_values"; key: string };

/** A metric's stored identity (a `metrics` row). */
export interface MetricIdentity {
  id: number;
  name: string;
  type: MetricSummaryRecord["type"];
  unit: string;
  description: string;
  /** 0 unspecified (gauges, summaries), 1 delta, 2 cumulative. */
  temporality: number;
  monotonic: boolean;
  /** JSON object, or null. */
  metadata: string | null;
}

/** How an identity's temporality and monotonicity read in answers (MetricSummaryRecord, MetricSeriesRecord). */
export function identityKind(metric: MetricIdentity): Pick<MetricSummaryRecord, "temporality" | "monotonic"> {
  const counted = metric.type === "sum" || metric.type === "histogram" || metric.type === "exponential_histogram";
  return {
    temporality: counted ? (metric.temporality === 1 ? "delta" : "cumulative") : null,
    monotonic: metric.type === "sum" ? metric.monotonic : null,
  };
}

export interface MetricListQuery {
  service?: string;
  /** Substring of the name. */
  name?: string;
  /** `after`: `id` is the previous page's last name, `ns` its metric id (names repeat across types). */
  page: PageRequest;
}

/** The series a metric query reads: of one metric, in a window, of a service, with attributes. */
export interface MetricScope {
  metric: MetricIdentity;
  /**
   * Other identities of the name read with `metric` as one: the same type, unit and aggregation
   * family in another temporality (a delta counter in one service, a cumulative one in
   * another), whose series' increases add up with its own. Absent or empty: `metric` alone.
   */
  alsoIds?: readonly number[];
  fromNs: bigint;
  toNs: bigint;
  service?: string;
  /** Exact `attr.KEY=VALUE` filters, on the point attributes or the resource's. */
  attrs: [string, string][];
}

/** Where buckets are read from: rollups of a width in seconds (a divisor of the step), or raw points. */
export type MetricSource = { kind: "rollups"; widthS: number } | { kind: "points" };

export interface MetricBucketQuery extends MetricScope {
  /** Bucket width, ms; buckets start at multiples of it (the first holds fromNs). */
  stepMs: number;
  source: MetricSource;
  groupBy: MetricGroupBy[];
  /** An agg the metric's type takes (the query service checks). */
  agg: MetricAgg;
}

/** One group of a bucketed metric query. */
export interface MetricGroupValues {
  /** The group's values, one per groupBy key in order; null where a series has no such attribute. */
  key: (string | null)[];
  /** Per bucket (the window's buckets in order); null where the group had no point (a rate's newest: the rate now). */
  values: (number | null)[];
  series: number;
  resets: number;
  /**
   * The group's exemplars' trace ids, newest first, at most MAX_GROUP_EXEMPLARS, each with the
   * time of the point that carried it (from a rollup row written before exemplar times were
   * kept: its slot's newest point's), so it falls in the bucket that holds the exemplar.
   */
  exemplars: { traceId: string; timeNs: bigint }[];
}

/** Trace ids of exemplars a group carries in an answer. */
export const MAX_GROUP_EXEMPLARS = 3;

export interface FacetValue {
  value: string;
  count: number;
}

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
 * Everything the query service reads, behind one interface: the service knows nothing of SQL,
 * and the implementation (sqlite-reader.ts) runs in the query thread on its own read connection.
 *
 * Contract, for every method unless it says otherwise:
 * - Ownership: every returned object and array is new and belongs to the caller, who may
 *   change or keep it; the reader keeps no reference to it and none to its arguments.
 * - Ids: trace and span ids are lower-case hex, in arguments and in answers (the HTTP parsing
 *   lower-cases them); an id the store does not hold is not an error.
 * - Empty results: no match, an unknown service name or an attribute key never stored is an
 *   empty list, an empty page (`{items: [], more: false, last: null}`) or null where stated;
 *   never an error.
 * - Errors: the reader validates nothing a caller could have got wrong (the query service and
 *   the route table do); it throws only when the store fails (better-sqlite3's SqliteError,
 *   e.g. the file is unreadable or corrupt), which the HTTP layer answers with 500.
 * - Windows: a record is in `[fromNs, toNs]` (both ends included) by its own timestamp: a
 *   span's start, a log's timestamp, a trace's first span start. The audit's windows differ
 *   (see auditFacts).
 * - Pages: `limit` items at most, newest first (timestamp, then a tie-breaking id, both
 *   descending), strictly after `page.after` when given; `more` says whether another item
 *   matched, and `last` is the sort key of the page's last item (the next page's `after`).
 *   An `after` must be a `last` the same method returned: spans and logs parse its id as a
 *   row id and throw on anything else (the signed cursors of shared/cursor.ts ensure it).
 */
export interface TelemetryReader {
  /**
   * The services with a span, log or metric point whose own timestamp is in the window (not when it
   * arrived), each last seen at the newest such timestamp; sorted by name (code points).
   */
  services(window: { fromNs: bigint; toNs: bigint }): ServiceRecord[];
  /**
   * One page of trace summaries: traces whose first span starts in the page's window and
   * that match every filter (`service`: any span of that service; `operation`: the root's
   * name; `durationMinMs`: inclusive; `attrs`: for each pair, some span of the trace has it).
   * Newest first by start time, then trace id; `last.id` is the trace id.
   */
  traces(query: TraceQuery): PageResult<TraceSummary>;
  /**
   * A trace's summary and one page of its spans in start order (then span id, ascending),
   * strictly after `page.after`, at most `page.limit` (default MAX_TRACE_SPANS; 0 reads the
   * summary alone). Not bound to any window. Null when the store holds no such trace.
   */
  trace(traceId: string, page?: TraceSpanPage): TraceDetail | null;
  /** Which of these span ids the trace has stored (any order; empty for an unknown trace). */
  storedSpanIds(traceId: string, spanIds: string[]): Set<string>;
  /**
   * One page of spans starting in the window that match every filter (`parentOperation`: the
   * parent span's name; `attrContains`: the attribute's text contains the value). Newest first
   * by start time, then row id; `last.id` is the row id in decimal, meaningful only as a cursor.
   */
  spans(query: SpanQuery): PageResult<SpanRecord>;
  /**
   * Every stored span with this id (ids are unique within a trace, not across traces), newest
   * start first, then trace id; empty when none. Not bound to any window.
   */
  span(spanId: string): SpanRecord[];
  /**
   * One page of logs timestamped in the window that match every filter (`severity`: a
   * case-insensitive substring of the severity text or of the severity number's name;
   * `contains`: a substring of a string body, or of another body's JSON). Newest first by
   * timestamp, then row id; `last.id` is the row id in decimal.
   */
  logs(query: LogQuery): PageResult<LogRecord>;
  /**
   * Aggregates over the traces the filter matches in its window, one row per group (a null
   * group for traces without a value, e.g. no such root attribute); by value descending,
   * then group. Empty when no trace matches.
   */
  traceStats(filter: TraceFilter, groupBy: TraceGroupBy, agg: TraceAgg): StatsRow[];
  /** Log counts per group over the logs the filter matches in its window; by count descending, then group. */
  logStats(filter: LogFilter, groupBy: LogGroupBy): StatsRow[];
  /**
   * The most frequent values of a field among the records in the window (of the service when
   * given), at most `limit`: by count descending, then value; null values and zero counts are left out.
   */
  facets(field: FacetField, window: { fromNs: bigint; toNs: bigint; service?: string }, limit: number): FacetValue[];
  /**
   * The bounded facts the audit rules judge (daemon/audit), for the current window
   * `(currentFromNs, untilNs]` and the baseline `(baselineFromNs, currentFromNs]` (rows by
   * their own timestamps, the start excluded; rollups by slot, daemon/query/rollup-window.ts).
   * Each list is bounded; a list cut short is named in `truncated`.
   */
  auditFacts(window: AuditWindow): AuditFacts;
  /**
   * One page of the metrics with a series whose points span meets the window (of the service
   * when given; `name` a case-sensitive substring), ordered by name then metric id, ascending
   * (not newest first), strictly after `page.after`. `pointCount` counts the points of the
   * rollup slots the window touches (the 60 s slots up to 6 hours, else the 900 s ones), so a
   * window edge may count up to one slot more. Empty page when none.
   */
  metrics(query: MetricListQuery): PageResult<MetricSummaryRecord>;
  /**
   * The stored identities with this exact name (several when the type, unit or temporality
   * changed, or differs between services), the most recently written to first; with `service`,
   * the one that service wrote to most recently first (those it never wrote to last). Not bound
   * to any window; empty when the name is unknown.
   */
  metricIdentities(name: string, service?: string): MetricIdentity[];
  /**
   * One metric's summary, first time and attributes over the series in the scope: each point
   * attribute key (at most `maxKeys`, by series count) with its `maxValues` most frequent
   * values by series count (then value), `more` when it has others. Null when no series of the
   * metric is in the scope.
   */
  describeMetric(scope: MetricScope, maxKeys: number, maxValues: number): MetricDetailRecord | null;
  /**
   * How often the series in scope export, in seconds: the lower median (of an even count, the
   * lower middle value) over up to 50 of them of each one's lower median gap between points,
   * read from the raw points of the window's newest 15 minutes.
   * Null when no series has two points there. Approximate by design: it sets a default step.
   */
  metricInterval(scope: MetricScope): number | null;
  /**
   * A metric's values per group and bucket, aggregated in SQLite from the source's rows: every
   * group that has a series in the scope (in no set order), values per bucket as METRIC_AGGS
   * describes them (a rate per second of the step; the newest bucket's, still open, the rate now:
   * metrics/newest-rate.ts). Rollups answer the slots inside each bucket;
   * points are read from each series' last point before the first bucket (so a cumulative
   * series' first increase is measured from it). Empty when no series is in the scope.
   */
  metricBuckets(query: MetricBucketQuery): MetricGroupValues[];
}
