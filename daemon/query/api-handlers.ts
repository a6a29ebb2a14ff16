import { formatDuration } from "../../shared/duration.js";
import { runAudit } from "../audit/run-audit.js";
import { pageMeta, pagingFor } from "./paging.js";
import {
  hexId,
  instant,
  lookback,
  MAX_LOOKBACK_MS,
  minutes,
  nonNegativeNumber,
  oneOf,
  type ParsedParams,
  parseParams,
  positiveInteger,
  QueryError,
  type RouteParams,
  text,
} from "./query-params.js";
import type {
  FacetField,
  LogGroupBy,
  LogQuery,
  TelemetryReader,
  TraceAgg,
  TraceGroupBy,
  TraceQuery,
} from "./telemetry-reader.js";
import { TRACE_ROUTE_PARAMS, traceAnswer, traceSpansAnswer } from "./trace-routes.js";

const FIFTEEN_MINUTES = 15 * 60_000;
const TRACE_LIMITS = { limit: 20, cap: 100, lookbackMs: FIFTEEN_MINUTES };
const SPAN_LIMITS = { limit: 100, cap: 500, lookbackMs: FIFTEEN_MINUTES };
const LOG_LIMITS = { limit: 100, cap: 500, lookbackMs: FIFTEEN_MINUTES };
/** Logs of one trace or span: the trace may be older than 15 minutes, so look back the maximum. */
const CORRELATED_LOG_LIMITS = { limit: 100, cap: 500, lookbackMs: MAX_LOOKBACK_MS };
const FACET_LIMITS = { limit: 100, cap: 500 };

function groupByParser(fixed: string[]) {
  return (raw: string, name: string): string | { attr: string } => {
    if (fixed.includes(raw)) return raw;
    if (raw.startsWith("attr.") && raw.length > 5) return { attr: raw.slice(5) };
    throw new QueryError(`invalid ${name} "${raw}": use one of ${fixed.join(", ")} or attr.KEY`);
  };
}

const traceGroupBy = groupByParser(["service", "operation", "status"]);
const logGroupBy = groupByParser(["service", "severity", "scope"]);

const FACET_FIELDS = {
  traces: ["service", "operation", "status", "attribute_keys", "attribute_values"],
  logs: ["service", "severity", "scope"],
};

const paging = { lookback, limit: positiveInteger, cursor: text };
/** Filters the trace list and trace aggregates share. */
const traceFilterParams = {
  service: text,
  status: oneOf("ok", "error"),
  operation: text,
  durationMin: nonNegativeNumber,
};
/** Filters the log list and log aggregates share. */
const logFilterParams = {
  service: text,
  severity: text,
  traceId: hexId(16),
  spanId: hexId(8),
  body: text,
  contains: text,
};

export const ROUTE_PARAMS = {
  services: { params: { lookback } },
  traces: {
    params: { ...traceFilterParams, ...paging },
    attr: true,
  },
  traceStats: {
    params: {
      groupBy: traceGroupBy,
      agg: oneOf("count", "avg_duration", "p95_duration", "error_rate"),
      ...traceFilterParams,
      lookback,
    },
    attr: true,
  },
  logStats: {
    params: { groupBy: logGroupBy, agg: oneOf("count"), ...logFilterParams, lookback },
    attr: true,
    attrContains: true,
  },
  facets: {
    params: {
      type: oneOf("traces", "logs"),
      field: oneOf("service", "operation", "status", "attribute_keys", "attribute_values", "severity", "scope"),
      key: text,
      service: text,
      lookback,
      limit: positiveInteger,
    },
  },
  ...TRACE_ROUTE_PARAMS,
  correlatedLogs: { params: paging },
  spans: {
    params: {
      service: text,
      traceId: hexId(16),
      operation: text,
      parentOperation: text,
      status: oneOf("ok", "error"),
      ...paging,
    },
    attr: true,
    attrContains: true,
  },
  span: { params: {} },
  logs: {
    params: { ...logFilterParams, ...paging },
    attr: true,
    attrContains: true,
  },
  audit: {
    params: {
      service: text,
      lookbackMinutes: minutes,
      baselineMinutes: minutes,
      durationMin: nonNegativeNumber,
      until: instant,
    },
  },
} satisfies Record<string, RouteParams>;

/** Traces whose last span ended less than this long ago may still be receiving spans. */
const AUDIT_GRACE_NS = 60n * 1_000_000_000n;

function pathId(raw: string | undefined, bytes: number, what: string): string {
  if (!raw || !new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(raw)) {
    throw new QueryError(`invalid ${what} "${raw}": expected ${bytes * 2} hex characters`);
  }
  return raw.toLowerCase();
}

function params(req: QueryRequest, route: RouteParams): ParsedParams {
  return parseParams(req.query, route);
}

function str(values: Record<string, unknown>, name: string): string | undefined {
  return typeof values[name] === "string" ? (values[name] as string) : undefined;
}

/** A query route's request, as the HTTP layer hands it over. */
export interface QueryRequest {
  path: Record<string, string>;
  query: Record<string, unknown>;
  nowNs: bigint;
  /** The store's key that signs page cursors (store/cursor-key.ts). */
  cursorKey: Buffer;
}

/** No such trace or span: answered with 404. */
export class NotFound extends Error {
  override name = "NotFound";
}

type Handler = (req: QueryRequest, reader: TelemetryReader) => unknown;

function requireParam(values: Record<string, unknown>, name: string, allowed: string): unknown {
  if (values[name] === undefined) throw new QueryError(`parameter ${name} is required: ${allowed}`);
  return values[name];
}

/** The window of an unpaged query: the last `lookback` (default 15m) up to now. */
function windowOf(values: Record<string, unknown>, toNs: bigint): { fromNs: bigint; toNs: bigint; lookback: string } {
  const lookbackMs = typeof values.lookback === "number" ? values.lookback : FIFTEEN_MINUTES;
  return { fromNs: toNs - BigInt(lookbackMs) * 1_000_000n, toNs, lookback: formatDuration(lookbackMs) };
}

/** Metadata of a list answered whole (no further pages). */
function wholeMeta(limit: number, returned: number, lookbackText: string | null, truncated = false) {
  return { limit, lookback: lookbackText, returned, truncated, nextCursor: null };
}

/** The trace filters of a parsed request (lists and aggregates take the same ones). */
function traceFilterOf(parsed: ParsedParams): Omit<TraceQuery, "page"> {
  const { values } = parsed;
  return {
    ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
    ...(values.status !== undefined ? { status: values.status as "ok" | "error" } : {}),
    ...(str(values, "operation") !== undefined ? { operation: str(values, "operation") } : {}),
    ...(typeof values.durationMin === "number" ? { durationMinMs: values.durationMin } : {}),
    attrs: parsed.attrs,
  };
}

/** The log filters of a parsed request; `body` and `contains` are the same filter. */
function logFilterOf(parsed: ParsedParams): Omit<LogQuery, "page"> {
  const { values } = parsed;
  const contains = str(values, "contains") ?? str(values, "body");
  return {
    ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
    ...(str(values, "severity") !== undefined ? { severity: str(values, "severity") } : {}),
    ...(str(values, "traceId") !== undefined ? { traceId: str(values, "traceId") } : {}),
    ...(str(values, "spanId") !== undefined ? { spanId: str(values, "spanId") } : {}),
    ...(contains !== undefined ? { contains } : {}),
    attrs: parsed.attrs,
    attrContains: parsed.attrContains,
  };
}

/** Every query route: its path pattern(s) and handler. */
const ROUTES: [string | string[], Handler][] = [
  [
    "/api/audit",
    (req, reader) => {
      const { values } = params(req, ROUTE_PARAMS.audit);
      const currentMs = typeof values.lookbackMinutes === "number" ? values.lookbackMinutes : FIFTEEN_MINUTES;
      const baselineMs = typeof values.baselineMinutes === "number" ? values.baselineMinutes : currentMs;
      const untilNs = typeof values.until === "bigint" ? values.until : req.nowNs;
      const currentFromNs = untilNs - BigInt(currentMs) * 1_000_000n;
      const service = str(values, "service");
      const window = {
        untilNs,
        currentFromNs,
        baselineFromNs: currentFromNs - BigInt(baselineMs) * 1_000_000n,
        graceNs: AUDIT_GRACE_NS,
        ...(service !== undefined ? { service } : {}),
        ...(typeof values.durationMin === "number" ? { durationMinMs: values.durationMin } : {}),
      };
      return { data: runAudit(reader.auditFacts(window), window) };
    },
  ],

  [
    "/api/services",
    (req, reader) => {
      const window = windowOf(params(req, ROUTE_PARAMS.services).values, req.nowNs);
      const data = reader.services(window);
      return { data, meta: wholeMeta(data.length, data.length, window.lookback) };
    },
  ],

  [
    "/api/traces/stats",
    (req, reader) => {
      const parsed = params(req, ROUTE_PARAMS.traceStats);
      const { values } = parsed;
      const groupBy = requireParam(values, "groupBy", "service, operation, status or attr.KEY") as TraceGroupBy;
      const agg = requireParam(values, "agg", "count, avg_duration, p95_duration or error_rate") as TraceAgg;
      const window = windowOf(values, req.nowNs);
      const data = reader.traceStats(
        { ...traceFilterOf(parsed), fromNs: window.fromNs, toNs: window.toNs },
        groupBy,
        agg,
      );
      const unit = agg === "count" ? "traces" : agg === "error_rate" ? "fraction" : "ms";
      return {
        data: data.map((row) => ({ ...row, agg, unit })),
        meta: wholeMeta(data.length, data.length, window.lookback),
      };
    },
  ],

  [
    "/api/logs/stats",
    (req, reader) => {
      const parsed = params(req, ROUTE_PARAMS.logStats);
      const { values } = parsed;
      const groupBy = requireParam(values, "groupBy", "service, severity, scope or attr.KEY") as LogGroupBy;
      const window = windowOf(values, req.nowNs);
      const data = reader.logStats({ ...logFilterOf(parsed), fromNs: window.fromNs, toNs: window.toNs }, groupBy);
      return {
        data: data.map((row) => ({ ...row, agg: "count", unit: "logs" })),
        meta: wholeMeta(data.length, data.length, window.lookback),
      };
    },
  ],

  [
    "/api/facets",
    (req, reader) => {
      const { values } = params(req, ROUTE_PARAMS.facets);
      const type = requireParam(values, "type", "traces or logs") as "traces" | "logs";
      const field = requireParam(values, "field", FACET_FIELDS[type].join(", ")) as string;
      if (!FACET_FIELDS[type].includes(field)) {
        throw new QueryError(`invalid field "${field}" for type=${type}: use one of ${FACET_FIELDS[type].join(", ")}`);
      }
      const key = str(values, "key");
      if (field === "attribute_values" && key === undefined) {
        throw new QueryError("field=attribute_values needs key=ATTRIBUTE");
      }
      const window = windowOf(values, req.nowNs);
      const limit = Math.min(typeof values.limit === "number" ? values.limit : FACET_LIMITS.limit, FACET_LIMITS.cap);
      const facet = (field === "attribute_values" ? { type, field, key } : { type, field }) as FacetField;
      const service = str(values, "service");
      const scope = { fromNs: window.fromNs, toNs: window.toNs, ...(service ? { service } : {}) };
      const data = reader.facets(facet, scope, limit + 1);
      const kept = data.slice(0, limit);
      return { data: kept, meta: wholeMeta(limit, kept.length, window.lookback, data.length > limit) };
    },
  ],

  [
    ["/api/traces", "/api/traces/search"],
    (req, reader) => {
      const parsed = params(req, ROUTE_PARAMS.traces);
      const page = pagingFor("traces", parsed, TRACE_LIMITS, req.nowNs, req.cursorKey);
      const result = reader.traces({ ...traceFilterOf(parsed), page: page.page });
      return { data: result.items, meta: pageMeta(result, page) };
    },
  ],

  [
    "/api/traces/:traceId",
    (req, reader) => {
      const traceId = pathId(req.path.traceId, 16, "trace id");
      const parsed = params(req, ROUTE_PARAMS.trace);
      const answer = traceAnswer({ traceId, parsed, nowNs: req.nowNs, cursorKey: req.cursorKey }, reader);
      if (answer === null) throw new NotFound(`no trace ${traceId} in the store`);
      return answer;
    },
  ],

  [
    "/api/traces/:traceId/spans",
    (req, reader) => {
      const traceId = pathId(req.path.traceId, 16, "trace id");
      const parsed = params(req, ROUTE_PARAMS.traceSpans);
      const answer = traceSpansAnswer({ traceId, parsed, nowNs: req.nowNs, cursorKey: req.cursorKey }, reader);
      if (answer === null) throw new NotFound(`no trace ${traceId} in the store`);
      return answer;
    },
  ],

  [
    "/api/traces/:traceId/logs",
    (req, reader) => {
      const traceId = pathId(req.path.traceId, 16, "trace id");
      const parsed = params(req, ROUTE_PARAMS.correlatedLogs);
      const page = pagingFor(`trace-logs:${traceId}`, parsed, CORRELATED_LOG_LIMITS, req.nowNs, req.cursorKey);
      const result = reader.logs({ traceId, attrs: [], attrContains: [], page: page.page });
      return { data: result.items, meta: pageMeta(result, page) };
    },
  ],

  [
    "/api/spans/search",
    (req, reader) => {
      const parsed = params(req, ROUTE_PARAMS.spans);
      const page = pagingFor("spans", parsed, SPAN_LIMITS, req.nowNs, req.cursorKey);
      const { values } = parsed;
      const result = reader.spans({
        ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
        ...(str(values, "traceId") !== undefined ? { traceId: str(values, "traceId") } : {}),
        ...(str(values, "operation") !== undefined ? { operation: str(values, "operation") } : {}),
        ...(str(values, "parentOperation") !== undefined ? { parentOperation: str(values, "parentOperation") } : {}),
        ...(values.status !== undefined ? { status: values.status as "ok" | "error" } : {}),
        attrs: parsed.attrs,
        attrContains: parsed.attrContains,
        page: page.page,
      });
      return { data: result.items, meta: pageMeta(result, page) };
    },
  ],

  [
    "/api/spans/:spanId",
    (req, reader) => {
      const spanId = pathId(req.path.spanId, 8, "span id");
      params(req, ROUTE_PARAMS.span);
      // Span ids are unique within a trace; the most recent span with this id answers.
      const [span] = reader.span(spanId);
      if (!span) throw new NotFound(`no span ${spanId} in the store`);
      // The summary alone (no spans), and the parent by its id: bounded however large the trace.
      const trace = reader.trace(span.traceId, { limit: 0 });
      const parent = span.parentSpanId
        ? (reader.span(span.parentSpanId).find((s) => s.traceId === span.traceId) ?? null)
        : null;
      return {
        data: {
          ...span,
          trace: trace?.summary ?? null,
          parent,
          missingParent: span.parentSpanId !== null && parent === null,
        },
      };
    },
  ],

  [
    "/api/spans/:spanId/logs",
    (req, reader) => {
      const spanId = pathId(req.path.spanId, 8, "span id");
      const parsed = params(req, ROUTE_PARAMS.correlatedLogs);
      const [span] = reader.span(spanId);
      if (!span) throw new NotFound(`no span ${spanId} in the store`);
      const page = pagingFor(`span-logs:${spanId}`, parsed, CORRELATED_LOG_LIMITS, req.nowNs, req.cursorKey);
      const result = reader.logs({ traceId: span.traceId, spanId, attrs: [], attrContains: [], page: page.page });
      return { data: result.items, meta: pageMeta(result, page) };
    },
  ],

  [
    ["/api/logs", "/api/logs/search"],
    (req, reader) => {
      const parsed = params(req, ROUTE_PARAMS.logs);
      const page = pagingFor("logs", parsed, LOG_LIMITS, req.nowNs, req.cursorKey);
      const result = reader.logs({ ...logFilterOf(parsed), page: page.page });
      return { data: result.items, meta: pageMeta(result, page) };
    },
  ],
];

const MATCHERS = ROUTES.flatMap(([patterns, handler]) =>
  (Array.isArray(patterns) ? patterns : [patterns]).map((pattern) => ({
    pattern,
    regex: new RegExp(`^${pattern.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
    handler,
  })),
);

export type QueryAnswer = { status: number; body: unknown };

/** Whether a query route has this path. */
export function isQueryRoute(path: string): boolean {
  return MATCHERS.some(({ regex }) => regex.test(path));
}

/**
 * Answers a GET on a query route: 200 with the body, 400 for bad parameters, 404 for unknown
 * ids; null when no query route has this path.
 */
export function answerQuery(
  path: string,
  req: Omit<QueryRequest, "path">,
  reader: TelemetryReader,
): QueryAnswer | null {
  for (const { regex, handler } of MATCHERS) {
    const match = regex.exec(path);
    if (!match) continue;
    try {
      return { status: 200, body: handler({ ...req, path: { ...match.groups } }, reader) };
    } catch (error) {
      if (error instanceof QueryError) return { status: 400, body: { error: error.message } };
      if (error instanceof NotFound) return { status: 404, body: { error: error.message } };
      throw error;
    }
  }
  return null;
}
