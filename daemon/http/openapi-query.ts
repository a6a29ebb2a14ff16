/** The OpenAPI description of the `/api` query routes (see query/api-handlers.ts and query/trace-routes.ts). */

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function query(name: string, schema: Schema, description: string, required = false) {
  return { name, in: "query", required, schema, description };
}

function pathId(name: string, bytes: number) {
  return {
    name,
    in: "path",
    required: true,
    schema: { type: "string", pattern: `^[0-9a-fA-F]{${bytes * 2}}$` },
    description: `${bytes * 2} hex characters`,
  };
}

const text = { type: "string" };
const durationText = { type: "string", pattern: "^[0-9]+(ms|s|m|h|d|w)$" };
const lookback = (defaultValue: string) =>
  query(
    "lookback",
    durationText,
    `How far back to look, e.g. 15m, 2h, 1d; at most 24h (400 above). Default ${defaultValue}.`,
  );
const limit = (def: number, cap: number) =>
  query(
    "limit",
    { type: "integer", minimum: 1 },
    `Page size; default ${def}, capped at ${cap} (meta.limit shows the effective value).`,
  );
const cursor = query("cursor", text, "meta.nextCursor of the previous page, unchanged; only with the same filters.");
const attr = query(
  "attr.KEY",
  text,
  "Exact attribute match, served by an index: replace KEY with the attribute key, e.g. attr.http.route=/users. Repeatable with different keys.",
);
const attrContains = query(
  "attrContains.KEY",
  text,
  "Attribute substring match: replace KEY with the attribute key, e.g. attrContains.db.statement=SELECT.",
);
const service = query("service", text, "Only this service.name.");
const traceStatus = query(
  "status",
  { type: "string", enum: ["ok", "error"] },
  "error: traces (or spans) with error status.",
);
const durationMin = query(
  "durationMin",
  { type: "number", minimum: 0 },
  "Only traces lasting at least this many milliseconds, at most 9223372036854 (what nanoseconds in 64 bits hold).",
);
const traceFilters = [
  service,
  traceStatus,
  query("operation", text, "Root operation (the root span's name)."),
  durationMin,
];
const logFilters = [
  service,
  query(
    "severity",
    text,
    "Substring of the severity text, or of the severity number's name (trace, debug, info, warn, error, fatal).",
  ),
  query("traceId", { type: "string", pattern: "^[0-9a-fA-F]{32}$" }, "Logs correlated to this trace."),
  query("spanId", { type: "string", pattern: "^[0-9a-fA-F]{16}$" }, "Logs correlated to this span."),
  query("body", text, "Substring of the body (same as contains)."),
  query("contains", text, "Substring of the body."),
];

function ok(description: string, schema: Schema) {
  return { description, content: { "application/json": { schema } } };
}

function error(description: string) {
  return { description, content: { "application/json": { schema: ref("Error") } } };
}

const list = (item: string) => ({
  type: "object",
  required: ["data", "meta"],
  properties: { data: { type: "array", items: ref(item) }, meta: ref("PageMeta") },
  additionalProperties: false,
});

function get(operationId: string, summary: string, parameters: unknown[], response: Schema, notFound = false) {
  return {
    get: {
      operationId,
      tags: ["query"],
      summary,
      parameters,
      responses: {
        "200": ok(summary, response),
        "400": error("A bad or unknown parameter; the message names it and the allowed values"),
        ...(notFound ? { "404": error("No such trace or span in the store") } : {}),
        "405": error("Method other than GET"),
      },
    },
  };
}

/** Path items for `paths`. */
export function queryPaths(): Record<string, unknown> {
  const traceList = get(
    "listTraces",
    "Trace summaries, newest first",
    [...traceFilters, lookback("15m"), limit(20, 100), cursor, attr],
    list("TraceSummary"),
  );
  const logList = get(
    "listLogs",
    "Log records, newest first",
    [...logFilters, lookback("15m"), limit(100, 500), cursor, attr, attrContains],
    list("Log"),
  );
  const statsResponse = {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("StatsRow") }, meta: ref("PageMeta") },
    additionalProperties: false,
  };
  return {
    "/api/services": get(
      "listServices",
      "Services observed in the window, by name",
      [lookback("15m")],
      list("Service"),
    ),
    "/api/traces": traceList,
    "/api/traces/search": { get: { ...traceList.get, operationId: "searchTraces", summary: "Alias of /api/traces" } },
    "/api/traces/stats": get(
      "traceStats",
      "Trace aggregates per group",
      [
        query(
          "groupBy",
          text,
          "service (root service), operation (root operation), status, or attr.KEY (the root span's attribute)",
          true,
        ),
        query(
          "agg",
          { type: "string", enum: ["count", "avg_duration", "p95_duration", "error_rate"] },
          "p95 is by nearest rank; error_rate is a fraction from 0 to 1",
          true,
        ),
        ...traceFilters,
        lookback("15m"),
        attr,
      ],
      statsResponse,
    ),
    "/api/traces/{traceId}": get(
      "getTrace",
      "One trace: summary and span tree, over at most 10,000 spans (meta says whether there are more)",
      [
        pathId("traceId", 16),
        query("include", text, "Comma-separated: spans, logs, attributes"),
        query(
          "limit",
          { type: "integer", minimum: 1 },
          "Spans in the answer, in start order; default and cap 10000. meta.nextCursor pages the rest on /api/traces/{traceId}/spans.",
        ),
      ],
      {
        type: "object",
        required: ["data", "meta"],
        properties: { data: ref("TraceDetail"), meta: ref("PageMeta") },
        additionalProperties: false,
      },
      true,
    ),
    "/api/traces/{traceId}/spans": get(
      "getTraceSpans",
      "The spans of one trace, flat, in start order, paged",
      [pathId("traceId", 16), limit(10_000, 10_000), cursor],
      list("Span"),
      true,
    ),
    "/api/traces/{traceId}/logs": get(
      "getTraceLogs",
      "Logs correlated to one trace, newest first",
      [pathId("traceId", 16), lookback("24h"), limit(100, 500), cursor],
      list("Log"),
    ),
    "/api/spans/search": get(
      "searchSpans",
      "Spans, newest first",
      [
        service,
        query("traceId", { type: "string", pattern: "^[0-9a-fA-F]{32}$" }, "Only spans of this trace."),
        query("operation", text, "Span name."),
        query("parentOperation", text, "Name of the span's parent."),
        traceStatus,
        lookback("15m"),
        limit(100, 500),
        cursor,
        attr,
        attrContains,
      ],
      list("Span"),
    ),
    "/api/spans/{spanId}": get(
      "getSpan",
      "One span with its trace and parent",
      [pathId("spanId", 8)],
      { type: "object", required: ["data"], properties: { data: ref("SpanDetail") }, additionalProperties: false },
      true,
    ),
    "/api/spans/{spanId}/logs": get(
      "getSpanLogs",
      "Logs correlated to one span, newest first",
      [pathId("spanId", 8), lookback("24h"), limit(100, 500), cursor],
      list("Log"),
      true,
    ),
    "/api/logs": logList,
    "/api/logs/search": { get: { ...logList.get, operationId: "searchLogs", summary: "Alias of /api/logs" } },
    "/api/logs/stats": get(
      "logStats",
      "Log counts per group",
      [
        query("groupBy", text, "service, severity, scope, or attr.KEY", true),
        query("agg", { type: "string", enum: ["count"] }, "Only count"),
        ...logFilters,
        lookback("15m"),
        attr,
        attrContains,
      ],
      statsResponse,
    ),
    "/api/facets": get(
      "listFacets",
      "Values of a field with counts, most frequent first",
      [
        query("type", { type: "string", enum: ["traces", "logs"] }, "Which records", true),
        query(
          "field",
          {
            type: "string",
            enum: ["service", "operation", "status", "attribute_keys", "attribute_values", "severity", "scope"],
          },
          "traces: service, operation, status, attribute_keys, attribute_values (needs key); logs: service, severity, scope",
          true,
        ),
        query("key", text, "The attribute key, for field=attribute_values"),
        service,
        lookback("15m"),
        limit(100, 500),
      ],
      list("FacetValue"),
    ),
    "/api/audit": get(
      "audit",
      "Deterministic audit of the current window against the baseline before it",
      [
        query("service", text, "Only this service.name (traces with a span of it, its spans and logs)."),
        query(
          "lookbackMinutes",
          { type: "number", exclusiveMinimum: true, minimum: 0, maximum: 1440, default: 15 },
          "Length of the current window, in minutes.",
        ),
        query(
          "baselineMinutes",
          { type: "number", exclusiveMinimum: true, minimum: 0, maximum: 1440 },
          "Length of the baseline window just before the current one, in minutes; default lookbackMinutes.",
        ),
        query(
          "durationMin",
          { type: "number", minimum: 0 },
          "Slow-trace threshold in ms. Given, latency_regression lists traces at or above it; absent, it compares each operation's p95 with the baseline.",
        ),
        query(
          "until",
          { type: "string", format: "date-time" },
          "End of the current window (default: now), 1970 to 2262-04-11 (what nanoseconds in 64 bits hold). Fixing it makes repeated audits of the same store byte-identical.",
        ),
      ],
      { type: "object", required: ["data"], properties: { data: ref("AuditReport") }, additionalProperties: false },
    ),
  };
}
