/**
 * The typed client of the collector's query API: one method per query route, taking a typed
 * request and returning the typed answer. It is what the CLI calls, and what a web UI or an MCP
 * server running outside the collector would call. The query string is built from the route
 * table, so a request can only carry parameters its route accepts.
 */
import type { HealthRecord } from "../../shared/api-records.js";
import type { QueryApi } from "../../shared/query-api.js";
import type { ObsRequestOf } from "../../shared/query-messages.js";
import type { QueryAnswerOf, QueryMethod } from "../../shared/query-types.js";
import { queryPairs, routePath } from "../../shared/route-requests.js";
import { requestJson, TIMEOUT_MS } from "./api-client.js";

export interface ObsClientOptions {
  /** How long one request may wait for its answer; then it fails with code `timeout`. */
  timeoutMs?: number;
}

export class ObsClient implements QueryApi {
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

  listServices(request: ObsRequestOf<"listServices"> = {}): Promise<QueryAnswerOf<"listServices">> {
    return this.call("listServices", request);
  }

  listTraces(request: ObsRequestOf<"listTraces"> = {}): Promise<QueryAnswerOf<"listTraces">> {
    return this.call("listTraces", request);
  }

  getTrace(request: ObsRequestOf<"getTrace">): Promise<QueryAnswerOf<"getTrace">> {
    return this.call("getTrace", request);
  }

  getTraceSpans(request: ObsRequestOf<"getTraceSpans">): Promise<QueryAnswerOf<"getTraceSpans">> {
    return this.call("getTraceSpans", request);
  }

  traceLogs(request: ObsRequestOf<"traceLogs">): Promise<QueryAnswerOf<"traceLogs">> {
    return this.call("traceLogs", request);
  }

  traceStats(request: ObsRequestOf<"traceStats">): Promise<QueryAnswerOf<"traceStats">> {
    return this.call("traceStats", request);
  }

  searchSpans(request: ObsRequestOf<"searchSpans"> = {}): Promise<QueryAnswerOf<"searchSpans">> {
    return this.call("searchSpans", request);
  }

  getSpan(request: ObsRequestOf<"getSpan">): Promise<QueryAnswerOf<"getSpan">> {
    return this.call("getSpan", request);
  }

  spanLogs(request: ObsRequestOf<"spanLogs">): Promise<QueryAnswerOf<"spanLogs">> {
    return this.call("spanLogs", request);
  }

  searchLogs(request: ObsRequestOf<"searchLogs"> = {}): Promise<QueryAnswerOf<"searchLogs">> {
    return this.call("searchLogs", request);
  }

  logStats(request: ObsRequestOf<"logStats">): Promise<QueryAnswerOf<"logStats">> {
    return this.call("logStats", request);
  }

  facets(request: ObsRequestOf<"facets">): Promise<QueryAnswerOf<"facets">> {
    return this.call("facets", request);
  }

  audit(request: ObsRequestOf<"audit"> = {}): Promise<QueryAnswerOf<"audit">> {
    return this.call("audit", request);
  }

  listMetrics(request: ObsRequestOf<"listMetrics"> = {}): Promise<QueryAnswerOf<"listMetrics">> {
    return this.call("listMetrics", request);
  }

  /** Each `groupBy` item is sent as its own `groupBy` parameter. */
  metricSeries(request: ObsRequestOf<"metricSeries">): Promise<QueryAnswerOf<"metricSeries">> {
    return this.call("metricSeries", request);
  }

  describeMetric(request: ObsRequestOf<"describeMetric">): Promise<QueryAnswerOf<"describeMetric">> {
    return this.call("describeMetric", request);
  }

  private call<T>(method: QueryMethod, request: object): Promise<T> {
    const values = request as Record<string, unknown>;
    return requestJson<T>(this.baseUrl, routePath(method, values), queryPairs(method, values), this.timeoutMs);
  }
}
