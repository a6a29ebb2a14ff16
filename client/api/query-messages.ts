/**
 * What ObsClient sends and receives: one request type per query route, with the values as the
 * query string carries them (a lookback stays its text, `15m`, because the answer echoes it),
 * and the answers as the collector serves them (shared/api-records.ts).
 */
import type {
  HealthRecord,
  LogRecord,
  Page,
  PageMeta,
  ServiceRecord,
  SpanRecord,
  SpanTreeNode,
  TraceSummary,
} from "../../shared/api-records.js";

/** `attr.KEY=VALUE` or `attrContains.KEY=TEXT`, in the order given; a repeated key keeps its last value. */
export type AttributeFilter = readonly [key: string, value: string];

interface Window {
  /** Duration text, at most 24h (`15m`, `2h`); the route's default when absent. */
  lookback?: string;
}

interface Paging {
  limit?: number;
  /** A previous page's `meta.nextCursor`, unchanged. */
  cursor?: string;
}

interface ExactAttributes {
  attr?: readonly AttributeFilter[];
}

interface AttributeSearch extends ExactAttributes {
  attrContains?: readonly AttributeFilter[];
}

export interface TraceFilters {
  service?: string;
  status?: "ok" | "error";
  /** The root operation. */
  operation?: string;
  /** Milliseconds, 0 or more. */
  durationMin?: number;
}

export interface LogFilters {
  service?: string;
  severity?: string;
  traceId?: string;
  spanId?: string;
  body?: string;
  contains?: string;
}

export type ServicesRequest = Window;
export interface TracesRequest extends TraceFilters, Window, Paging, ExactAttributes {}
export interface TraceRequest {
  traceId: string;
  /** Comma-separated: spans, logs, attributes. */
  include?: string;
  limit?: number;
}
export interface TraceSpansRequest extends Paging {
  traceId: string;
}
export interface TraceLogsRequest extends Window, Paging {
  traceId: string;
}
export interface SpanSearchRequest extends Window, Paging, AttributeSearch {
  service?: string;
  traceId?: string;
  operation?: string;
  parentOperation?: string;
  status?: "ok" | "error";
}
export interface SpanRequest {
  spanId: string;
}
export interface SpanLogsRequest extends Window, Paging {
  spanId: string;
}
export interface LogSearchRequest extends LogFilters, Window, Paging, AttributeSearch {}
export interface TraceStatsRequest extends TraceFilters, Window, ExactAttributes {
  /** service, operation, status or attr.KEY. */
  groupBy: string;
  agg: "count" | "avg_duration" | "p95_duration" | "error_rate";
}
export interface LogStatsRequest extends LogFilters, Window, AttributeSearch {
  /** service, severity, scope or attr.KEY. */
  groupBy: string;
  agg?: "count";
}
export interface FacetsRequest extends Window {
  type: "traces" | "logs";
  field: string;
  /** The attribute, for `attribute_values`. */
  key?: string;
  service?: string;
  limit?: number;
}
export interface AuditRequest {
  service?: string;
  lookbackMinutes?: number;
  baselineMinutes?: number;
  durationMin?: number;
  /** ISO 8601 with a zone: the end of the current window. */
  until?: string;
}

/** `GET /api/traces/:traceId`: the summary, its tree, and what `include` asked for. */
export type TraceAnswer = TraceSummary & {
  tree: SpanTreeNode[];
  spans?: SpanRecord[];
  logs?: LogRecord[];
  logsTruncated?: boolean;
};

/** `GET /api/spans/:spanId`: the span with its trace and parent. */
export interface SpanAnswer extends SpanRecord {
  trace: TraceSummary | null;
  parent: SpanRecord | null;
  missingParent: boolean;
}

export interface StatsRow {
  group: string | null;
  agg: string;
  value: number;
  unit: string;
  count: number;
}

export interface FacetValue {
  value: string;
  count: number;
}

/** The audit report (daemon/audit/run-audit.ts). */
export interface AuditReport {
  window: { currentStart: string; currentEnd: string; current: string; baseline: string };
  counts: { error: number; warning: number; info: number };
  findings: {
    code: string;
    severity: string;
    confidence: string;
    service: string | null;
    operation: string | null;
    summary: string;
    evidence: { traceIds: string[]; spanIds: string[]; logIds: string[]; notes: string[] };
    followUp: string[];
  }[];
  truncated: string[];
}

/** An answer of one record or aggregate, with the page it came from when it has one. */
export interface Answer<T> {
  data: T;
  meta: PageMeta;
}

export type { HealthRecord, LogRecord, Page, ServiceRecord, SpanRecord, TraceSummary };
