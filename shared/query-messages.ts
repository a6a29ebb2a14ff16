/**
 * A query as the query string carries it: one request type per query method of the route
 * table. ObsClient sends these over HTTP; obsd's in-process callers (the MCP server) parse
 * them through the same route table, so both ask exactly what the HTTP API would. The query service's own requests
 * (shared/query-types.ts) hold parsed values instead (milliseconds, nanoseconds); a client
 * keeps the text a user gave, because the answer echoes it (`meta.lookback: "15m"`).
 */
import type { QUERY_ROUTES } from "./query-routes.js";
import type { QueryMethod } from "./query-types.js";

/**
 * `attr.KEY=VALUE` or `attrContains.KEY=TEXT`, in the order given, each key once: the CLI refuses
 * a repeated key, as the API does (queryPairs sends the last value of one that reaches it).
 */
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
  type: "traces" | "logs" | "metrics";
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

export interface MetricsRequest extends Window, Paging {
  service?: string;
  /** Substring of the metric's name. */
  name?: string;
}
export interface MetricSeriesRequest extends Window, ExactAttributes {
  name: string;
  /** Where the name has identities of several types: the one of this type. */
  type?: string;
  /** `service` or `attr.KEY`, each a grouping key, in order. */
  groupBy?: readonly string[];
  agg?: string;
  /** Duration text (`30s`, `15m`); the default is chosen from the window and the series' export interval. */
  step?: string;
  service?: string;
  /** Groups in the answer. */
  limit?: number;
}
export interface DescribeMetricRequest extends Window {
  name: string;
  /** Where the name has identities of several types: the one of this type. */
  type?: string;
  service?: string;
}

/** Every query method's request as the client sends it. */
export interface ObsRequests {
  listServices: ServicesRequest;
  listTraces: TracesRequest;
  traceStats: TraceStatsRequest;
  getTrace: TraceRequest;
  getTraceSpans: TraceSpansRequest;
  traceLogs: TraceLogsRequest;
  searchSpans: SpanSearchRequest;
  getSpan: SpanRequest;
  spanLogs: SpanLogsRequest;
  searchLogs: LogSearchRequest;
  logStats: LogStatsRequest;
  facets: FacetsRequest;
  audit: AuditRequest;
  listMetrics: MetricsRequest;
  metricSeries: MetricSeriesRequest;
  describeMetric: DescribeMetricRequest;
}

export type ObsRequestOf<M extends QueryMethod> = ObsRequests[M];

type Route<M extends QueryMethod> = (typeof QUERY_ROUTES)[M];
/** What a request may name: its route's query and path parameters, and the attribute filters. */
type RouteField<M extends QueryMethod> =
  | keyof Route<M>["params"]
  | keyof Route<M>["pathParams"]
  | "attr"
  | "attrContains";
/** A request field its route does not have, or a route parameter its request lacks. */
type Mismatch = {
  [M in QueryMethod]:
    | Exclude<keyof ObsRequests[M], RouteField<M>>
    | Exclude<keyof Route<M>["params"] | keyof Route<M>["pathParams"], keyof ObsRequests[M]>;
}[QueryMethod];
type MustBeNever<T extends never> = T;
/**
 * Checked by the compiler: each request type names exactly its route's parameters, so a
 * parameter added to the route table without its field here (or the reverse) fails the build.
 */
export type RequestsMatchRoutes = MustBeNever<Mismatch>;
