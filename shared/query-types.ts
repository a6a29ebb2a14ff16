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
export type FacetType = "traces" | "logs" | "metrics";
export type FacetFieldName =
  | "service"
  | "operation"
  | "status"
  | "attribute_keys"
  | "attribute_values"
  | "severity"
  | "scope"
  | "name";

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
  /** The attribute key, for field=attribute_values; refused with any other field. */
  key?: string;
  service?: string;
  lookback?: number;
  limit?: number;
}
/** How the points of a metric's series are combined per bucket and group (/api/metrics/series). */
export type MetricAgg =
  /** Sums: the increase per second of the step (the newest, still open bucket: the rate now, over the last five minutes). */
  | "rate"
  /** Sums: the increase over the bucket (cumulative: counter resets restart at 0; delta: summed). */
  | "increase"
  /** Sums: the increase; gauges: the sum of the values. */
  | "sum"
  /** Gauges: each series' newest value in the bucket, summed over the group (the newest bucket: the value now). */
  | "last"
  | "avg"
  | "min"
  | "max"
  /** Histograms and summaries: the number of observations in the bucket. */
  | "count"
  | "p50"
  | "p90"
  | "p95"
  | "p99";
/** `service`, or `{attr: KEY}` for a point (or resource) attribute. */
export type MetricGroupBy = "service" | { attr: string };

export interface ListMetricsRequest extends PageArgs {
  service?: string;
  /** Substring of the metric's name. */
  name?: string;
}
export interface MetricSeriesRequest {
  name: string;
  /** Where the name has identities of several types: the one of this type. */
  type?: MetricSummaryRecord["type"];
  /** Several keys group by their combination; absent, one group holds every series. */
  groupBy?: MetricGroupBy[];
  /** Default by type: sum rate, gauge last, histogram and summary p95. */
  agg?: MetricAgg;
  /** Bucket width, milliseconds; default chosen from the window (at most a few hundred buckets) and the series' export interval. */
  step?: number;
  service?: string;
  attrs?: AttrFilters;
  lookback?: number;
  /** Groups in the answer (the ones with the largest latest value first, or total where the values add up: addsUp). */
  limit?: number;
}
export interface DescribeMetricRequest {
  name: string;
  type?: MetricSummaryRecord["type"];
  service?: string;
  lookback?: number;
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

/** A metric seen in the window (/api/metrics). */
export interface MetricSummaryRecord {
  name: string;
  type: "gauge" | "sum" | "histogram" | "exponential_histogram" | "summary";
  unit: string;
  description: string;
  /** Sums and histograms: "delta" or "cumulative"; null for gauges and summaries. */
  temporality: "delta" | "cumulative" | null;
  /** Sums: whether the sum only grows; null for other kinds. */
  monotonic: boolean | null;
  services: string[];
  seriesCount: number;
  /** Points in the window. */
  pointCount: number;
  lastTime: string;
}

/** One group of a metric's series, bucket by bucket. */
export interface MetricSeriesGroup {
  /** The group's key values, e.g. `{"service": "api", "attr.gen_ai.token.type": "input"}`; `{}` ungrouped. */
  group: Record<string, string | null>;
  /** One value per bucket of the answer; null where the group had no point (a rate's newest: the rate now). */
  values: (number | null)[];
  /** The newest non-null value. */
  latest: number | null;
  /** Series in the group. */
  series: number;
  /** Counter resets seen in the window (a start time that moved, or a value that dropped). */
  resets: number;
  /** Trace ids of the group's exemplars in the window, newest first (at most a few). */
  exemplarTraceIds: string[];
  /**
   * The same exemplars with their time: the time of the point that carried each (from a rollup
   * row written before exemplar times were kept, its slot's newest point), so it falls in the
   * bucket that holds the exemplar.
   */
  exemplars: { traceId: string; time: string }[];
}

export interface MetricSeriesRecord {
  name: string;
  type: MetricSummaryRecord["type"];
  unit: string;
  /** The identity answering (a name may have several: another unit, type or temporality). */
  temporality: MetricSummaryRecord["temporality"];
  monotonic: MetricSummaryRecord["monotonic"];
  agg: MetricAgg;
  /** The unit of `values` (e.g. `{token}/s` for a rate). */
  valueUnit: string;
  step: string;
  stepMs: number;
  from: string;
  to: string;
  /** The start of each bucket, ISO 8601. */
  buckets: string[];
  groups: MetricSeriesGroup[];
}

export interface MetricDetailRecord extends MetricSummaryRecord {
  metadata: Record<string, unknown> | null;
  firstTime: string;
  /** The series' attribute keys, each with its most frequent values and their series counts. */
  attributes: { key: string; values: { value: string; series: number }[]; more: boolean }[];
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
  listMetrics: { request: ListMetricsRequest; answer: Page<MetricSummaryRecord> };
  metricSeries: { request: MetricSeriesRequest; answer: Paged<MetricSeriesRecord> };
  describeMetric: { request: DescribeMetricRequest; answer: { data: MetricDetailRecord } };
}

export type QueryMethod = keyof QueryMethods;
export type QueryRequestOf<M extends QueryMethod> = QueryMethods[M]["request"];
export type QueryAnswerOf<M extends QueryMethod> = QueryMethods[M]["answer"];
