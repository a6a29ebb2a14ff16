/**
 * The query service: one method per query, typed requests in (already parsed: milliseconds,
 * nanoseconds, enums), typed answers out. It owns what a query means beyond the store:
 * defaults, caps and windows (as the route table states them), page cursors, and its own
 * errors (QueryError: invalid_argument, not_found), which each front-end renders its own way.
 * It knows nothing of HTTP; the store is behind TelemetryReader (as Jaeger's querysvc sits over
 * its tracestore.Reader), so tests run it over a fake reader.
 */
import { formatDuration } from "../../shared/duration.js";
import { checkArgs } from "../../shared/query-args.js";
import { QueryError } from "../../shared/query-error.js";
import { effectiveLimit } from "../../shared/query-params.js";
import { FACET_FIELDS, QUERY_ROUTES } from "../../shared/query-routes.js";
import type {
  AuditRequest,
  FacetsRequest,
  GetSpanRequest,
  GetTraceRequest,
  GetTraceSpansRequest,
  ListServicesRequest,
  ListTracesRequest,
  LogFilterArgs,
  LogStatsRequest,
  QueryAnswerOf,
  QueryMethod,
  QueryMethods,
  QueryRequestOf,
  SearchLogsRequest,
  SearchSpansRequest,
  SpanLogsRequest,
  TraceFilterArgs,
  TraceLogsRequest,
  TraceStatsRequest,
} from "../../shared/query-types.js";
import { runAudit } from "../audit/run-audit.js";
import { describeMetricAnswer, metricSeriesAnswer } from "./metric-answers.js";
import {
  type PageFilters,
  type PageStart,
  type Paging,
  type PagingDefaults,
  pageMeta,
  pagingDefaults,
  pagingFor,
  statedLookbackMs,
} from "./paging.js";
import type { FacetField, LogQuery, TelemetryReader, TraceQuery } from "./telemetry-reader.js";
import { traceAnswer, traceSpansAnswer } from "./trace-answers.js";

export interface QueryServiceOptions {
  reader: TelemetryReader;
  /** The current time, Unix nanoseconds: where windows without a cursor end. */
  now: () => bigint;
  /** The store's key that signs page cursors (store/cursor-key.ts). */
  cursorKey: Buffer;
}

/** Every method of the route table, with its request and answer types. */
export type QueryMethodsOf = { [M in QueryMethod]: (req: QueryMethods[M]["request"]) => QueryMethods[M]["answer"] };

const TRACE_LIMITS = pagingDefaults(QUERY_ROUTES.listTraces);
const SPAN_LIMITS = pagingDefaults(QUERY_ROUTES.searchSpans);
const LOG_LIMITS = pagingDefaults(QUERY_ROUTES.searchLogs);
const TRACE_LOG_LIMITS = pagingDefaults(QUERY_ROUTES.traceLogs);
const SPAN_LOG_LIMITS = pagingDefaults(QUERY_ROUTES.spanLogs);
const FACET_LIMITS = pagingDefaults(QUERY_ROUTES.facets);
const FACET_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.facets);
const SERVICES_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.listServices);
const TRACE_STATS_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.traceStats);
const LOG_STATS_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.logStats);
const METRIC_LIMITS = pagingDefaults(QUERY_ROUTES.listMetrics);
const METRIC_SERIES_LIMITS = {
  limit: Number(QUERY_ROUTES.metricSeries.params.limit.default),
  cap: Number(QUERY_ROUTES.metricSeries.params.limit.cap),
};
const METRIC_SERIES_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.metricSeries);
const DESCRIBE_LOOKBACK_MS = statedLookbackMs(QUERY_ROUTES.describeMetric);
const AUDIT_WINDOW_MS = Number(QUERY_ROUTES.audit.params.lookbackMinutes.default) * 60_000;
/** Traces whose last span ended less than this long ago may still be receiving spans. */
const AUDIT_GRACE_NS = 60n * 1_000_000_000n;

/** Metadata of a list answered whole (no further pages). */
function wholeMeta(limit: number, returned: number, lookbackText: string | null, truncated = false) {
  return { limit, lookback: lookbackText, returned, truncated, nextCursor: null };
}

/** The trace filters of a request (lists and aggregates take the same ones). */
function traceFilterOf(req: TraceFilterArgs): Omit<TraceQuery, "page"> {
  return {
    ...(req.service !== undefined ? { service: req.service } : {}),
    ...(req.status !== undefined ? { status: req.status } : {}),
    ...(req.operation !== undefined ? { operation: req.operation } : {}),
    ...(req.durationMin !== undefined ? { durationMinMs: req.durationMin } : {}),
    attrs: req.attrs ?? [],
  };
}

/** The log filters of a request; `body` and `contains` are the same filter. */
function logFilterOf(req: LogFilterArgs): Omit<LogQuery, "page"> {
  if (req.contains !== undefined && req.body !== undefined) {
    throw new QueryError("give body or contains, not both: they are the same filter (contains is its other name)");
  }
  const contains = req.contains ?? req.body;
  return {
    ...(req.service !== undefined ? { service: req.service } : {}),
    ...(req.severity !== undefined ? { severity: req.severity } : {}),
    ...(req.traceId !== undefined ? { traceId: req.traceId } : {}),
    ...(req.spanId !== undefined ? { spanId: req.spanId } : {}),
    ...(contains !== undefined ? { contains } : {}),
    attrs: req.attrs ?? [],
    attrContains: req.attrContains ?? [],
  };
}

export class QueryService implements QueryMethodsOf {
  private readonly reader: TelemetryReader;
  private readonly now: () => bigint;
  private readonly cursorKey: Buffer;

  constructor(options: QueryServiceOptions) {
    this.reader = options.reader;
    this.now = options.now;
    this.cursorKey = options.cursorKey;
  }

  /**
   * Calls a method by name, as a transport that carries `{method, args}` does. Each method
   * checks its arguments against the route table first (shared/query-args.ts), so a front-end
   * that calls the service directly meets the same rules and messages as an HTTP client.
   */
  call<M extends QueryMethod>(method: M, args: QueryMethods[M]["request"]): QueryMethods[M]["answer"] {
    if (!Object.hasOwn(QUERY_ROUTES, method)) throw new QueryError(`no query method ${String(method)}`);
    const run = this[method] as (req: QueryMethods[M]["request"]) => QueryMethods[M]["answer"];
    return run.call(this, args);
  }

  private paging(scope: PageFilters, start: PageStart, defaults: PagingDefaults): Paging {
    return pagingFor(scope, start, defaults, this.now(), this.cursorKey);
  }

  /** The window of an unpaged query: the last `lookback` (or the route's default) up to now. */
  private window(
    lookbackMs: number | undefined,
    defaultMs: number,
  ): { fromNs: bigint; toNs: bigint; lookback: string } {
    const toNs = this.now();
    const ms = lookbackMs ?? defaultMs;
    return { fromNs: toNs - BigInt(ms) * 1_000_000n, toNs, lookback: formatDuration(ms) };
  }

  listServices(args: ListServicesRequest): QueryAnswerOf<"listServices"> {
    const req = checkArgs("listServices", args);
    const window = this.window(req.lookback, SERVICES_LOOKBACK_MS);
    const data = this.reader.services(window);
    return { data, meta: wholeMeta(data.length, data.length, window.lookback) };
  }

  listTraces(args: ListTracesRequest): QueryAnswerOf<"listTraces"> {
    const req = checkArgs("listTraces", args);
    const { cursor, limit, attrs, ...filters } = req;
    const page = this.paging({ route: "traces", filters, attrs }, { limit, cursor }, TRACE_LIMITS);
    const result = this.reader.traces({ ...traceFilterOf(req), page: page.page });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  traceStats(args: TraceStatsRequest): QueryAnswerOf<"traceStats"> {
    const req = checkArgs("traceStats", args);
    const window = this.window(req.lookback, TRACE_STATS_LOOKBACK_MS);
    const data = this.reader.traceStats(
      { ...traceFilterOf(req), fromNs: window.fromNs, toNs: window.toNs },
      req.groupBy,
      req.agg,
    );
    const unit = req.agg === "count" ? "traces" : req.agg === "error_rate" ? "fraction" : "ms";
    return {
      data: data.map((row) => ({ ...row, agg: req.agg, unit })),
      meta: wholeMeta(data.length, data.length, window.lookback),
    };
  }

  getTrace(args: GetTraceRequest): QueryAnswerOf<"getTrace"> {
    const req = checkArgs("getTrace", args);
    return traceAnswer(req, { reader: this.reader, nowNs: this.now(), cursorKey: this.cursorKey });
  }

  getTraceSpans(args: GetTraceSpansRequest): QueryAnswerOf<"getTraceSpans"> {
    const req = checkArgs("getTraceSpans", args);
    return traceSpansAnswer(req, { reader: this.reader, nowNs: this.now(), cursorKey: this.cursorKey });
  }

  /** Logs of one trace; an unknown trace has none (no 404: logs may arrive before their spans). */
  traceLogs(args: TraceLogsRequest): QueryAnswerOf<"traceLogs"> {
    const req = checkArgs("traceLogs", args);
    const { traceId, cursor, limit, ...filters } = req;
    const page = this.paging({ route: `trace-logs:${traceId}`, filters }, { limit, cursor }, TRACE_LOG_LIMITS);
    const result = this.reader.logs({ traceId, attrs: [], attrContains: [], page: page.page });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  searchSpans(args: SearchSpansRequest): QueryAnswerOf<"searchSpans"> {
    const req = checkArgs("searchSpans", args);
    const { cursor, limit, attrs, attrContains, ...filters } = req;
    const page = this.paging({ route: "spans", filters, attrs, attrContains }, { limit, cursor }, SPAN_LIMITS);
    const result = this.reader.spans({
      ...(req.service !== undefined ? { service: req.service } : {}),
      ...(req.traceId !== undefined ? { traceId: req.traceId } : {}),
      ...(req.operation !== undefined ? { operation: req.operation } : {}),
      ...(req.parentOperation !== undefined ? { parentOperation: req.parentOperation } : {}),
      ...(req.status !== undefined ? { status: req.status } : {}),
      attrs: attrs ?? [],
      attrContains: attrContains ?? [],
      page: page.page,
    });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  getSpan(args: GetSpanRequest): QueryAnswerOf<"getSpan"> {
    const req = checkArgs("getSpan", args);
    // Span ids are unique within a trace; the most recent span with this id answers.
    const [span] = this.reader.span(req.spanId);
    if (!span) throw new QueryError(`no span ${req.spanId} in the store`, "not_found");
    // The summary alone (no spans), and the parent by its id: bounded however large the trace.
    const trace = this.reader.trace(span.traceId, { limit: 0 });
    const parent = span.parentSpanId
      ? (this.reader.span(span.parentSpanId).find((s) => s.traceId === span.traceId) ?? null)
      : null;
    return {
      data: {
        ...span,
        trace: trace?.summary ?? null,
        parent,
        missingParent: span.parentSpanId !== null && parent === null,
      },
    };
  }

  /**
   * Logs of one span id, as `/api/logs?spanId=` finds them: neither a span not stored (logs may
   * arrive before their spans, or without them) nor a newer span reusing the id in another
   * trace hides them. An unknown span has none (no 404), as for a trace. When the id's stored
   * spans are all of one trace, its logs are read through the trace's index; otherwise by the
   * span id alone, which has no index of its own and reads every log.
   */
  spanLogs(args: SpanLogsRequest): QueryAnswerOf<"spanLogs"> {
    const req = checkArgs("spanLogs", args);
    const { spanId, cursor, limit, ...filters } = req;
    const page = this.paging({ route: `span-logs:${spanId}`, filters }, { limit, cursor }, SPAN_LOG_LIMITS);
    const traces = new Set(this.reader.span(spanId).map((span) => span.traceId));
    const ofTrace = traces.size === 1 ? { traceId: [...traces][0] as string } : {};
    const result = this.reader.logs({ ...ofTrace, spanId, attrs: [], attrContains: [], page: page.page });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  searchLogs(args: SearchLogsRequest): QueryAnswerOf<"searchLogs"> {
    const req = checkArgs("searchLogs", args);
    const { cursor, limit, attrs, attrContains, ...filters } = req;
    const page = this.paging({ route: "logs", filters, attrs, attrContains }, { limit, cursor }, LOG_LIMITS);
    const result = this.reader.logs({ ...logFilterOf(req), page: page.page });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  logStats(args: LogStatsRequest): QueryAnswerOf<"logStats"> {
    const req = checkArgs("logStats", args);
    const window = this.window(req.lookback, LOG_STATS_LOOKBACK_MS);
    const data = this.reader.logStats({ ...logFilterOf(req), fromNs: window.fromNs, toNs: window.toNs }, req.groupBy);
    return {
      data: data.map((row) => ({ ...row, agg: "count", unit: "logs" })),
      meta: wholeMeta(data.length, data.length, window.lookback),
    };
  }

  facets(args: FacetsRequest): QueryAnswerOf<"facets"> {
    const req = checkArgs("facets", args);
    const { type, field, key } = req;
    const fields: readonly string[] = FACET_FIELDS[type];
    if (!fields.includes(field)) {
      throw new QueryError(`invalid field "${field}" for type=${type}: use one of ${fields.join(", ")}`);
    }
    if (field === "attribute_values" && key === undefined) {
      throw new QueryError("field=attribute_values needs key=ATTRIBUTE");
    }
    // Ignored, a key would read as a filter that was applied (the CLI refuses --key alike).
    if (field !== "attribute_values" && key !== undefined) {
      throw new QueryError(`key applies to field=attribute_values only, not to field=${field}`);
    }
    const window = this.window(req.lookback, FACET_LOOKBACK_MS);
    const limit = effectiveLimit(req.limit, FACET_LIMITS);
    const facet = (field === "attribute_values" ? { type, field, key } : { type, field }) as FacetField;
    const scope = { fromNs: window.fromNs, toNs: window.toNs, ...(req.service ? { service: req.service } : {}) };
    const data = this.reader.facets(facet, scope, limit + 1);
    const kept = data.slice(0, limit);
    return { data: kept, meta: wholeMeta(limit, kept.length, window.lookback, data.length > limit) };
  }

  audit(args: AuditRequest): QueryAnswerOf<"audit"> {
    const req = checkArgs("audit", args);
    const currentMs = req.lookbackMinutes ?? AUDIT_WINDOW_MS;
    const baselineMs = req.baselineMinutes ?? currentMs;
    const untilNs = req.until ?? this.now();
    const currentFromNs = untilNs - BigInt(currentMs) * 1_000_000n;
    const window = {
      untilNs,
      currentFromNs,
      baselineFromNs: currentFromNs - BigInt(baselineMs) * 1_000_000n,
      graceNs: AUDIT_GRACE_NS,
      ...(req.service !== undefined ? { service: req.service } : {}),
      ...(req.durationMin !== undefined ? { durationMinMs: req.durationMin } : {}),
    };
    return { data: runAudit(this.reader.auditFacts(window), window) };
  }

  /** Metrics with a point in the window, by name (then identity), paged. */
  listMetrics(args: QueryRequestOf<"listMetrics">): QueryAnswerOf<"listMetrics"> {
    const req = checkArgs("listMetrics", args);
    const { cursor, limit, ...filters } = req;
    const page = this.paging({ route: "metrics", filters }, { limit, cursor }, METRIC_LIMITS);
    const result = this.reader.metrics({
      ...(req.service !== undefined ? { service: req.service } : {}),
      ...(req.name !== undefined ? { name: req.name } : {}),
      page: page.page,
    });
    return { data: result.items, meta: pageMeta(result, page) };
  }

  metricSeries(args: QueryRequestOf<"metricSeries">): QueryAnswerOf<"metricSeries"> {
    const req = checkArgs("metricSeries", args);
    const context = { reader: this.reader, nowNs: this.now(), lookbackMs: METRIC_SERIES_LOOKBACK_MS };
    return metricSeriesAnswer(req, context, METRIC_SERIES_LIMITS);
  }

  describeMetric(args: QueryRequestOf<"describeMetric">): QueryAnswerOf<"describeMetric"> {
    const req = checkArgs("describeMetric", args);
    return describeMetricAnswer(req, { reader: this.reader, nowNs: this.now(), lookbackMs: DESCRIBE_LOOKBACK_MS });
  }
}
