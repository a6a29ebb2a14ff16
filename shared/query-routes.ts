/**
 * The query routes, described once: each QueryService method with its HTTP path(s), path and
 * query parameters (kind, description, default, cap, required), whether it takes `attr.KEY` /
 * `attrContains.KEY`, its OpenAPI summary and operationId and the JSON Schema of its answer.
 * The HTTP parsing (query-request.ts), the OpenAPI document (daemon/http/openapi-query.ts) and
 * the CLI's flags are derived from it: a new route or parameter is one edit here.
 *
 * Parameter order matters: it is the order of the OpenAPI document and of the "this route
 * accepts ..." message.
 */
import { METRIC_ROUTES } from "./metric-routes.js";
import type { QueryMethod } from "./query-types.js";
import {
  correlatedLookback,
  cursor,
  DEFAULT_LOOKBACK,
  hex,
  limit,
  lookback,
  MAX_TRACE_SPANS,
  one,
  pageOf,
  service,
  text,
} from "./route-builders.js";

export { METRIC_AGGS } from "./metric-routes.js";
export { DEFAULT_LOOKBACK, MAX_TRACE_SPANS } from "./route-builders.js";

export type ParamKind =
  /** Any non-empty text. */
  | "text"
  /** One of `values`. */
  | "enum"
  /** A comma-separated list of some of `values`. */
  | "enumList"
  /** One of `values`, or `attr.KEY`. */
  | "groupBy"
  /** Several groupBy values: the parameter repeated, or comma-separated. */
  | "groupByList"
  /** `bytes` bytes as hex; lower-cased. */
  | "hexId"
  /** An integer and a unit (15m, 2h, 1d), at most 24h; parsed to milliseconds. */
  | "duration"
  | "positiveInteger"
  /** A number of milliseconds, 0 or more (fractions allowed). */
  | "milliseconds"
  /** A number of minutes, more than 0, at most 1440; parsed to milliseconds. */
  | "minutes"
  /** ISO 8601 with a zone; parsed to Unix nanoseconds. */
  | "instant";

export interface ParamSpec {
  kind: ParamKind;
  description: string;
  /** The allowed values of enum, enumList and groupBy. */
  values?: readonly string[];
  /** hexId: the id's length in bytes. */
  bytes?: number;
  /** The value when absent, as a user would write it (duration text, a number of the kind's unit). */
  default?: string | number;
  /**
   * The largest value, in the same unit as `default`: a larger page size is lowered to it, a
   * longer lookback is refused (400).
   */
  cap?: string | number;
  /** Absent, the request is refused with "parameter NAME is required: ..." */
  required?: boolean;
  /**
   * The allowed values depend on another parameter's value (facets: field by type). The
   * required message lists the values for the given one; `values` holds all of them.
   */
  valuesBy?: { param: string; values: Record<string, readonly string[]> };
  /** OpenAPI: state the default in the schema too (not only in the description). */
  schemaDefault?: boolean;
  /** The CLI flag that sets this parameter, e.g. `min-duration` for durationMin (filled in by the CLI). */
  flag?: string;
}

export interface PathParamSpec {
  bytes: number;
  /** How a bad value is named: `invalid trace id "x": ...`. */
  what: string;
}

export interface RoutePath {
  /** OpenAPI form, e.g. `/api/traces/{traceId}`. */
  path: string;
  operationId: string;
  /** When it differs from the route's (an alias). */
  summary?: string;
}

export type JsonSchema = Record<string, unknown>;

export interface QueryRoute {
  /** The first path is the route's own; the others are aliases with the same parameters. */
  paths: RoutePath[];
  summary: string;
  pathParams: Record<string, PathParamSpec>;
  params: Record<string, ParamSpec>;
  attr?: boolean;
  attrContains?: boolean;
  /** Answers 404 for what it does not find: true for an unknown trace or span, else what it says (the OpenAPI document's words). */
  notFound?: true | string;
  /** The 200 answer; `$ref`s point at `#/components/schemas/NAME` (shared/record-schemas.ts). */
  answer: JsonSchema;
}

const status: ParamSpec = {
  kind: "enum",
  values: ["ok", "error"],
  description: "error: traces (or spans) with error status.",
  flag: "status",
};
const durationMin: ParamSpec = {
  kind: "milliseconds",
  description:
    "Only traces lasting at least this many milliseconds, at most 9223372036854 (what nanoseconds in 64 bits hold).",
  flag: "duration-min",
};
/** Filters the trace list and trace aggregates share. */
const traceFilters = {
  service,
  status,
  operation: { ...text("Root operation (the root span's name)."), flag: "operation" },
  durationMin,
};
/** Filters the log list and log aggregates share. */
const logFilters = {
  service,
  severity: {
    ...text(
      "Substring of the severity text, or of the severity number's name (trace, debug, info, warn, error, fatal).",
    ),
    flag: "severity",
  },
  traceId: hex(16, "Logs correlated to this trace."),
  spanId: hex(8, "Logs correlated to this span."),
  body: text("Substring of the body (same as contains)."),
  contains: text("Substring of the body."),
};
/** The attribute filters a route may take (its `attr` and `attrContains` flags), as documented. */
export const ATTR_FILTER_PARAMS = {
  attr: {
    name: "attr.KEY",
    description:
      "Exact attribute match, served by an index: replace KEY with the attribute key, e.g. attr.http.route=/users. Repeatable with different keys.",
  },
  attrContains: {
    name: "attrContains.KEY",
    description:
      "Attribute substring match: replace KEY with the attribute key, e.g. attrContains.db.statement=SELECT.",
  },
} as const;

const traceIdPath = { traceId: { bytes: 16, what: "trace id" } };
const spanIdPath = { spanId: { bytes: 8, what: "span id" } };

export const FACET_FIELDS = {
  traces: ["service", "operation", "status", "attribute_keys", "attribute_values"],
  logs: ["service", "severity", "scope"],
  metrics: ["name", "service", "attribute_keys", "attribute_values"],
} as const;

/** Every query route, by the QueryService method that answers it. */
export const QUERY_ROUTES = {
  listServices: {
    paths: [{ path: "/api/services", operationId: "listServices" }],
    summary: "Services observed in the window, by name",
    pathParams: {},
    params: { lookback: lookback(DEFAULT_LOOKBACK) },
    answer: pageOf("Service"),
  },
  listTraces: {
    paths: [
      { path: "/api/traces", operationId: "listTraces" },
      { path: "/api/traces/search", operationId: "searchTraces", summary: "Alias of /api/traces" },
    ],
    summary: "Trace summaries, newest first",
    pathParams: {},
    params: { ...traceFilters, lookback: lookback(DEFAULT_LOOKBACK), limit: limit(20, 100), cursor },
    attr: true,
    answer: pageOf("TraceSummary"),
  },
  traceStats: {
    paths: [{ path: "/api/traces/stats", operationId: "traceStats" }],
    summary: "Trace aggregates per group",
    pathParams: {},
    params: {
      groupBy: {
        kind: "groupBy",
        values: ["service", "operation", "status"],
        required: true,
        description:
          "service (root service), operation (root operation), status, or attr.KEY (the root span's attribute)",
      },
      agg: {
        kind: "enum",
        values: ["count", "avg_duration", "p95_duration", "error_rate"],
        required: true,
        description: "p95 is by nearest rank; error_rate is a fraction from 0 to 1",
      },
      ...traceFilters,
      lookback: lookback(DEFAULT_LOOKBACK),
    },
    attr: true,
    answer: pageOf("StatsRow"),
  },
  getTrace: {
    paths: [{ path: "/api/traces/{traceId}", operationId: "getTrace" }],
    summary: "One trace: summary and span tree, over at most 10,000 spans (meta says whether there are more)",
    pathParams: traceIdPath,
    params: {
      include: {
        kind: "enumList",
        values: ["logs", "spans", "attributes"],
        description: "Comma-separated: spans, logs, attributes",
        flag: "include",
      },
      limit: {
        kind: "positiveInteger",
        default: MAX_TRACE_SPANS,
        cap: MAX_TRACE_SPANS,
        description:
          "Spans in the answer, in start order; default and cap 10000. meta.nextCursor pages the rest on /api/traces/{traceId}/spans.",
      },
    },
    notFound: true,
    answer: one("TraceDetail", true),
  },
  getTraceSpans: {
    paths: [{ path: "/api/traces/{traceId}/spans", operationId: "getTraceSpans" }],
    summary: "The spans of one trace, flat, in start order, paged",
    pathParams: traceIdPath,
    params: { limit: limit(MAX_TRACE_SPANS, MAX_TRACE_SPANS), cursor },
    notFound: true,
    answer: pageOf("Span"),
  },
  traceLogs: {
    paths: [{ path: "/api/traces/{traceId}/logs", operationId: "getTraceLogs" }],
    summary: "Logs correlated to one trace, newest first",
    pathParams: traceIdPath,
    params: { lookback: correlatedLookback, limit: limit(100, 500), cursor },
    answer: pageOf("Log"),
  },
  searchSpans: {
    paths: [{ path: "/api/spans/search", operationId: "searchSpans" }],
    summary: "Spans, newest first",
    pathParams: {},
    params: {
      service,
      traceId: { ...hex(16, "Only spans of this trace."), flag: "trace-id" },
      operation: { ...text("Span name."), flag: "operation" },
      parentOperation: { ...text("Name of the span's parent."), flag: "parent-operation" },
      status,
      lookback: lookback(DEFAULT_LOOKBACK),
      limit: limit(100, 500),
      cursor,
    },
    attr: true,
    attrContains: true,
    answer: pageOf("Span"),
  },
  getSpan: {
    paths: [{ path: "/api/spans/{spanId}", operationId: "getSpan" }],
    summary: "One span with its trace and parent",
    pathParams: spanIdPath,
    params: {},
    notFound: true,
    answer: one("SpanDetail", false),
  },
  spanLogs: {
    paths: [{ path: "/api/spans/{spanId}/logs", operationId: "getSpanLogs" }],
    summary: "Logs correlated to one span, newest first",
    pathParams: spanIdPath,
    params: { lookback: correlatedLookback, limit: limit(100, 500), cursor },
    answer: pageOf("Log"),
  },
  searchLogs: {
    paths: [
      { path: "/api/logs", operationId: "listLogs" },
      { path: "/api/logs/search", operationId: "searchLogs", summary: "Alias of /api/logs" },
    ],
    summary: "Log records, newest first",
    pathParams: {},
    params: {
      ...logFilters,
      traceId: { ...logFilters.traceId, flag: "trace-id" },
      spanId: { ...logFilters.spanId, flag: "span-id" },
      contains: { ...logFilters.contains, flag: "contains" },
      lookback: lookback(DEFAULT_LOOKBACK),
      limit: limit(100, 500),
      cursor,
    },
    attr: true,
    attrContains: true,
    answer: pageOf("Log"),
  },
  logStats: {
    paths: [{ path: "/api/logs/stats", operationId: "logStats" }],
    summary: "Log counts per group",
    pathParams: {},
    params: {
      groupBy: {
        kind: "groupBy",
        values: ["service", "severity", "scope"],
        required: true,
        description: "service, severity, scope, or attr.KEY",
      },
      agg: { kind: "enum", values: ["count"], description: "Only count" },
      ...logFilters,
      lookback: lookback(DEFAULT_LOOKBACK),
    },
    attr: true,
    attrContains: true,
    answer: pageOf("StatsRow"),
  },
  facets: {
    paths: [{ path: "/api/facets", operationId: "listFacets" }],
    summary: "Values of a field with counts, most frequent first",
    pathParams: {},
    params: {
      type: { kind: "enum", values: ["traces", "logs", "metrics"], required: true, description: "Which records" },
      field: {
        kind: "enum",
        values: ["service", "operation", "status", "attribute_keys", "attribute_values", "severity", "scope", "name"],
        valuesBy: { param: "type", values: FACET_FIELDS },
        required: true,
        description:
          "traces: service, operation, status, attribute_keys, attribute_values (needs key); logs: service, severity, scope; metrics: name, service, attribute_keys, attribute_values (needs key), counted in series",
      },
      key: { ...text("The attribute key, for field=attribute_values (refused with any other field)"), flag: "key" },
      service,
      lookback: lookback(DEFAULT_LOOKBACK),
      limit: limit(100, 500),
    },
    answer: pageOf("FacetValue"),
  },
  audit: {
    paths: [{ path: "/api/audit", operationId: "audit" }],
    summary: "Deterministic audit of the current window against the baseline before it",
    pathParams: {},
    params: {
      service: { ...text("Only this service.name (traces with a span of it, its spans and logs)."), flag: "service" },
      lookbackMinutes: {
        kind: "minutes",
        default: 15,
        schemaDefault: true,
        description: "Length of the current window, in minutes.",
      },
      baselineMinutes: {
        kind: "minutes",
        description: "Length of the baseline window just before the current one, in minutes; default lookbackMinutes.",
      },
      durationMin: {
        kind: "milliseconds",
        description:
          "Slow-trace threshold in ms. Given, latency_regression lists traces at or above it; absent, it compares each operation's p95 with the baseline.",
        flag: "duration-min",
      },
      until: {
        kind: "instant",
        description:
          "End of the current window (default: now), 1970 to 2262-04-11 (what nanoseconds in 64 bits hold). Fixing it makes repeated audits of the same store byte-identical.",
        flag: "until",
      },
    },
    answer: one("AuditReport", false),
  },
  // Last, as before the move: the OpenAPI document lists routes in this order.
  ...METRIC_ROUTES,
} satisfies Record<QueryMethod, QueryRoute>;

/** The table, typed as the general shape (for code that walks every route). */
export const QUERY_ROUTE_LIST: [QueryMethod, QueryRoute][] = Object.entries(QUERY_ROUTES) as [
  QueryMethod,
  QueryRoute,
][];
