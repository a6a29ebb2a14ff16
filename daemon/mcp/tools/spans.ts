/** `search_spans`: spans by service, operation, parent, status and attributes, as compact rows. */
import type { Attributes, SpanRecord } from "../../../shared/api-records.js";
import { cutString, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import {
  ATTRIBUTES_PROPERTY,
  CURSOR_PROPERTY,
  LOOKBACK_PROPERTY,
  SERVICE_PROPERTY,
  TRACE_ID_PROPERTY,
} from "./common-inputs.js";
import { searchPage } from "./paged-search.js";
import {
  ATTRIBUTES_OUTPUT,
  attributePairs,
  fewAttributes,
  MORE_ATTRIBUTES_OUTPUT,
  msOfNs,
  spanDetailsCall,
  traceErrorsCall,
  traceOutlineCall,
  withoutUndefined,
} from "./query-args.js";
import { ATTRIBUTES_CONTAIN_PROPERTY, limitProperty, routeLimit, STATUS_PROPERTY } from "./query-inputs.js";
import { label } from "./telemetry-text.js";

export interface SearchSpansArgs {
  service?: string;
  trace_id?: string;
  operation?: string;
  parent_operation?: string;
  status?: "ok" | "error";
  attributes?: Record<string, string>;
  attributes_contain?: Record<string, string>;
  lookback?: string;
  limit?: number;
  cursor?: string;
  max_bytes?: number;
}

/** One span, compact. */
export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  service: string;
  kind: SpanRecord["kind"];
  start: string;
  duration_ms: number;
  status: SpanRecord["status"]["code"];
  /** The error status message, when the span failed. */
  message?: string;
  attributes: Attributes;
  more_attributes: number;
}

export interface SearchSpansAnswer extends AnswerTail {
  lookback: string | null;
  spans: SpanRow[];
}

export function spanRow(span: SpanRecord): SpanRow {
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: cutString(span.operation),
    service: cutString(span.serviceName),
    kind: span.kind,
    start: span.startTime,
    duration_ms: msOfNs(span.durationNs),
    status: span.status.code,
    ...(span.status.code === "error" && span.status.message ? { message: cutString(span.status.message) } : {}),
    ...fewAttributes(span.attributes),
  };
}

/** The span most worth a look: the first error, else the slowest. */
export function spanOfInterest(rows: readonly SpanRow[]): { row: SpanRow; why: string } | undefined {
  const failed = rows.find((row) => row.status === "error");
  if (failed) return { row: failed, why: "error" };
  const slowest = rows.reduce<SpanRow | undefined>(
    (best, row) => (best === undefined || row.duration_ms > best.duration_ms ? row : best),
    undefined,
  );
  return slowest && { row: slowest, why: "slowest" };
}

/** `spans[i]` is the span of `rows[i]`: its name is named whole, to be cut once. */
function nextCalls(rows: readonly SpanRow[], spans: readonly SpanRecord[]): NextCall[] {
  const chosen = spanOfInterest(rows);
  if (!chosen) return [];
  const { row, why } = chosen;
  const name = label(spans[rows.indexOf(row)]?.operation ?? row.name);
  const span = why === "error" ? `the first error span (${name})` : `the slowest span (${name})`;
  return [
    traceOutlineCall(row.trace_id, `the outline of the trace of ${span}`),
    spanDetailsCall(row.trace_id, [row.span_id], `the attributes and events of ${span}`),
    why === "error"
      ? traceErrorsCall(row.trace_id, "every error of that trace, with its exceptions and logs")
      : {
          tool: "search_logs",
          arguments: { trace_id: row.trace_id, span_id: row.span_id, lookback: "24h" },
          why: `the logs of ${span}`,
        },
  ];
}

const SPAN_ROW_SCHEMA = {
  type: "object",
  properties: {
    trace_id: { type: "string" },
    span_id: { type: "string" },
    parent_span_id: { type: ["string", "null"] },
    name: { type: "string", description: "The span's name (operation)" },
    service: { type: "string" },
    kind: { type: "string" },
    start: { type: "string", description: "ISO 8601" },
    duration_ms: { type: "number" },
    status: { type: "string", enum: ["unset", "ok", "error"] },
    message: { type: "string", description: "The status message of an error span" },
    attributes: ATTRIBUTES_OUTPUT,
    more_attributes: MORE_ATTRIBUTES_OUTPUT,
  },
  required: [
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "service",
    "start",
    "duration_ms",
    "status",
    "attributes",
  ],
} as const;

export const searchSpans: McpTool<SearchSpansArgs, SearchSpansAnswer> = {
  name: "search_spans",
  title: "Search spans",
  description:
    "Spans (not whole traces), newest first, filtered by service, trace, span name, parent span name, status and span/resource attributes (exact or substring). Use it to find where in many traces an operation fails or is slow, e.g. every failing db query under one endpoint. Rows are compact: ids, name, service, start, duration in ms, status and the first few attributes; get_span_details gives a span whole, get_trace_outline its trace. Default window 15m, at most 24h.",
  inputSchema: toolInput({
    service: SERVICE_PROPERTY,
    trace_id: { ...TRACE_ID_PROPERTY, description: "Only spans of this trace (32 hex characters)" },
    operation: { type: "string", description: "Exact span name, e.g. GET /cart" },
    parent_operation: { type: "string", description: "Exact name of the span's parent" },
    status: STATUS_PROPERTY,
    attributes: ATTRIBUTES_PROPERTY,
    attributes_contain: ATTRIBUTES_CONTAIN_PROPERTY,
    lookback: LOOKBACK_PROPERTY,
    limit: limitProperty("searchSpans", "Spans"),
    cursor: CURSOR_PROPERTY,
  }),
  outputSchema: toolOutput(
    {
      lookback: { type: ["string", "null"], description: "The window searched" },
      spans: { type: "array", items: SPAN_ROW_SCHEMA },
    },
    ["lookback", "spans"],
  ),
  async run(args, ctx) {
    const filters = withoutUndefined({
      service: args.service,
      traceId: args.trace_id,
      operation: args.operation,
      parentOperation: args.parent_operation,
      status: args.status,
      attr: attributePairs(args.attributes),
      attrContains: attributePairs(args.attributes_contain),
      lookback: args.lookback,
    });
    return searchPage({
      tool: "search_spans",
      noun: "spans",
      args,
      defaultLimit: routeLimit("searchSpans").default,
      maxBytes: ctx.maxBytes,
      fetch: (page) => ctx.api.searchSpans(withoutUndefined({ ...filters, ...page })),
      build: (spans, lookback, tail) => {
        const rows = spans.map(spanRow);
        return { lookback, spans: rows, ...tail, next: nextCalls(rows, spans) };
      },
    });
  },
};
