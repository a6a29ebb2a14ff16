/**
 * The typed client of the collector's query API: one method per query route, taking a typed
 * request and returning the typed answer. It is what the CLI calls, and what a web UI or an MCP
 * server running outside the collector would call. The query string is built from the route
 * table, so a request can only carry parameters its route accepts.
 */
import { requestJson, TIMEOUT_MS } from "./api-client.js";
import type {
  Answer,
  AuditReport,
  AuditRequest,
  FacetsRequest,
  FacetValue,
  HealthRecord,
  LogRecord,
  LogSearchRequest,
  LogStatsRequest,
  Page,
  ServiceRecord,
  ServicesRequest,
  SpanAnswer,
  SpanLogsRequest,
  SpanRecord,
  SpanRequest,
  SpanSearchRequest,
  StatsRow,
  TraceAnswer,
  TraceLogsRequest,
  TraceRequest,
  TraceSpansRequest,
  TraceStatsRequest,
  TraceSummary,
  TracesRequest,
} from "./query-messages.js";
import { CLIENT_ROUTES, type ClientRoute, queryPairs, routePath } from "./route-requests.js";

export interface ObsClientOptions {
  /** How long one request may wait for its answer; then it fails with code `timeout`. */
  timeoutMs?: number;
}

export class ObsClient {
  private readonly timeoutMs: number;

  constructor(
    readonly baseUrl: string,
    options: ObsClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  health(): Promise<HealthRecord> {
    return requestJson<HealthRecord>(this.baseUrl, "/api/health", [], this.timeoutMs);
  }

  listServices(request: ServicesRequest = {}): Promise<Page<ServiceRecord>> {
    return this.call(CLIENT_ROUTES.listServices, request);
  }

  listTraces(request: TracesRequest = {}): Promise<Page<TraceSummary>> {
    return this.call(CLIENT_ROUTES.listTraces, request);
  }

  getTrace(request: TraceRequest): Promise<Answer<TraceAnswer>> {
    return this.call(CLIENT_ROUTES.getTrace, request);
  }

  getTraceSpans(request: TraceSpansRequest): Promise<Page<SpanRecord>> {
    return this.call(CLIENT_ROUTES.getTraceSpans, request);
  }

  traceLogs(request: TraceLogsRequest): Promise<Page<LogRecord>> {
    return this.call(CLIENT_ROUTES.traceLogs, request);
  }

  traceStats(request: TraceStatsRequest): Promise<Answer<StatsRow[]>> {
    return this.call(CLIENT_ROUTES.traceStats, request);
  }

  searchSpans(request: SpanSearchRequest = {}): Promise<Page<SpanRecord>> {
    return this.call(CLIENT_ROUTES.searchSpans, request);
  }

  getSpan(request: SpanRequest): Promise<{ data: SpanAnswer }> {
    return this.call(CLIENT_ROUTES.getSpan, request);
  }

  spanLogs(request: SpanLogsRequest): Promise<Page<LogRecord>> {
    return this.call(CLIENT_ROUTES.spanLogs, request);
  }

  searchLogs(request: LogSearchRequest = {}): Promise<Page<LogRecord>> {
    return this.call(CLIENT_ROUTES.searchLogs, request);
  }

  logStats(request: LogStatsRequest): Promise<Answer<StatsRow[]>> {
    return this.call(CLIENT_ROUTES.logStats, request);
  }

  facets(request: FacetsRequest): Promise<Answer<FacetValue[]>> {
    return this.call(CLIENT_ROUTES.facets, request);
  }

  audit(request: AuditRequest = {}): Promise<{ data: AuditReport }> {
    return this.call(CLIENT_ROUTES.audit, request);
  }

  private call<T>(route: ClientRoute, request: object): Promise<T> {
    const values = request as Record<string, unknown>;
    return requestJson<T>(this.baseUrl, routePath(route, values), queryPairs(route, values), this.timeoutMs);
  }
}
