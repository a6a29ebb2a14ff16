import type { LogRecord, ServiceRecord, SpanRecord, TraceSummary } from "../../shared/api-records.js";
import type { LogGroupBy, TraceAgg, TraceGroupBy } from "../../shared/query-types.js";
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
  | { type: "logs"; field: "service" | "severity" | "scope" };

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
   * The services with a span or log whose own timestamp is in the window (not when it
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
}
