/**
 * The typed requests and answers of the query service (daemon/query/query-service.ts), one pair
 * per method of the route table (shared/query-routes.ts). A request's fields are named after the
 * route's HTTP parameters and hold their parsed values: durations and windows in milliseconds,
 * instants in Unix nanoseconds, ids in lower-case hex. Absent fields take the route's default.
 * A client (CLI, UI, MCP) builds these and reads the answers; the HTTP layer parses a query
 * string into them through the route table.
 */
import type {
  LogRecord,
  Page,
  PageMeta,
  ServiceRecord,
  SpanRecord,
  SpanTreeNode,
  TraceSummary,
} from "./api-records.js";

/** `attr.KEY=VALUE` pairs (exact matches), in the order given. */
export type AttrFilters = [string, string][];

export type TraceStatus = "ok" | "error";
export type TraceGroupBy = "service" | "operation" | "status" | { attr: string };
export type TraceAgg = "count" | "avg_duration" | "p95_duration" | "error_rate";
export type LogGroupBy = "service" | "severity" | "scope" | { attr: string };
export type TraceInclude = "logs" | "spans" | "attributes";
export type FacetType = "traces" | "logs";
export type FacetFieldName =
  | "service"
  | "operation"
  | "status"
  | "attribute_keys"
  | "attribute_values"
  | "severity"
  | "scope";

/** Paging of a list: the window length (ms), the page size and the previous page's nextCursor. */
export interface PageArgs {
  lookback?: number;
  limit?: number;
  cursor?: string;
}

export interface TraceFilterArgs {
  service?: string;
  status?: TraceStatus;
  /** The root operation. */
  operation?: string;
  /** Milliseconds. */
  durationMin?: number;
  attrs?: AttrFilters;
}

export interface LogFilterArgs {
  service?: string;
  severity?: string;
  traceId?: string;
  spanId?: string;
  /** Same filter as `contains`; `contains` wins when both are given. */
  body?: string;
  contains?: string;
  attrs?: AttrFilters;
  /** `attrContains.KEY=TEXT` pairs (substring matches). */
  attrContains?: AttrFilters;
}

export interface ListServicesRequest {
  lookback?: number;
}
export type ListTracesRequest = TraceFilterArgs & PageArgs;
export interface TraceStatsRequest extends TraceFilterArgs {
  groupBy: TraceGroupBy;
  agg: TraceAgg;
  lookback?: number;
}
export interface GetTraceRequest {
  traceId: string;
  include?: TraceInclude[];
  limit?: number;
}
export interface GetTraceSpansRequest {
  traceId: string;
  limit?: number;
  cursor?: string;
}
export interface TraceLogsRequest extends PageArgs {
  traceId: string;
}
export interface SearchSpansRequest extends PageArgs {
  service?: string;
  traceId?: string;
  operation?: string;
  parentOperation?: string;
  status?: TraceStatus;
  attrs?: AttrFilters;
  attrContains?: AttrFilters;
}
export interface GetSpanRequest {
  spanId: string;
}
export interface SpanLogsRequest extends PageArgs {
  spanId: string;
}
export type SearchLogsRequest = LogFilterArgs & PageArgs;
export interface LogStatsRequest extends LogFilterArgs {
  groupBy: LogGroupBy;
  agg?: "count";
  lookback?: number;
}
export interface FacetsRequest {
  type: FacetType;
  field: FacetFieldName;
  /** The attribute key, for field=attribute_values. */
  key?: string;
  service?: string;
  lookback?: number;
  limit?: number;
}
export interface AuditRequest {
  service?: string;
  /** Length of the current window, in milliseconds (the HTTP parameter is in minutes). */
  lookbackMinutes?: number;
  /** Length of the baseline window, in milliseconds (the HTTP parameter is in minutes). */
  baselineMinutes?: number;
  /** Slow-trace threshold, milliseconds. */
  durationMin?: number;
  /** End of the current window, Unix nanoseconds. */
  until?: bigint;
}

/** One group of an aggregate, with the aggregate's name and unit. */
export interface StatsAnswerRow {
  group: string | null;
  value: number;
  count: number;
  agg: string;
  unit: string;
}

export interface FacetValueRecord {
  value: string;
  count: number;
}

/** A span tree node with the span's attributes, for `include=attributes`. */
export type SpanTreeNodeWithAttributes = SpanTreeNode & { attributes: SpanRecord["attributes"] };

export interface TraceDetailRecord extends TraceSummary {
  tree: SpanTreeNode[] | SpanTreeNodeWithAttributes[];
  spans?: SpanRecord[];
  logs?: LogRecord[];
  logsTruncated?: boolean;
}

export interface SpanDetailRecord extends SpanRecord {
  trace: TraceSummary | null;
  parent: SpanRecord | null;
  missingParent: boolean;
}

/** schemas/api/audit-report.json; the daemon's audit (daemon/audit/run-audit.ts) builds it. */
export interface AuditReportRecord {
  window: {
    currentStart: string;
    currentEnd: string;
    baselineStart: string;
    baselineEnd: string;
    current: string;
    baseline: string;
  };
  parameters: { service: string | null; durationMin: number | null };
  counts: { error: number; warning: number; info: number };
  findings: {
    code: string;
    severity: string;
    confidence: string;
    service: string | null;
    operation: string | null;
    summary: string;
    evidence: { traceIds: string[]; spanIds: string[]; logIds: string[]; notes: string[] };
    current: Record<string, number> | null;
    baseline: Record<string, number> | null;
    followUp: string[];
  }[];
  truncated: string[];
}

/** One answer with its page metadata (a trace's spans are paged). */
export interface Paged<T> {
  data: T;
  meta: PageMeta;
}

/** Every query method: its request and its answer. */
export interface QueryMethods {
  listServices: { request: ListServicesRequest; answer: Page<ServiceRecord> };
  listTraces: { request: ListTracesRequest; answer: Page<TraceSummary> };
  traceStats: { request: TraceStatsRequest; answer: Page<StatsAnswerRow> };
  getTrace: { request: GetTraceRequest; answer: Paged<TraceDetailRecord> };
  getTraceSpans: { request: GetTraceSpansRequest; answer: Page<SpanRecord> };
  traceLogs: { request: TraceLogsRequest; answer: Page<LogRecord> };
  searchSpans: { request: SearchSpansRequest; answer: Page<SpanRecord> };
  getSpan: { request: GetSpanRequest; answer: { data: SpanDetailRecord } };
  spanLogs: { request: SpanLogsRequest; answer: Page<LogRecord> };
  searchLogs: { request: SearchLogsRequest; answer: Page<LogRecord> };
  logStats: { request: LogStatsRequest; answer: Page<StatsAnswerRow> };
  facets: { request: FacetsRequest; answer: Page<FacetValueRecord> };
  audit: { request: AuditRequest; answer: { data: AuditReportRecord } };
}

export type QueryMethod = keyof QueryMethods;
export type QueryRequestOf<M extends QueryMethod> = QueryMethods[M]["request"];
export type QueryAnswerOf<M extends QueryMethod> = QueryMethods[M]["answer"];
