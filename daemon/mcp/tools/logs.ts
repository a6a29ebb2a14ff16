/** `search_logs`: log records by service, severity, correlation ids, body text and attributes. */
import type { Attributes, LogRecord } from "../../../shared/api-records.js";
import { logBodyText } from "../../../shared/log-text.js";
import { cutString, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import {
  ATTRIBUTES_PROPERTY,
  CURSOR_PROPERTY,
  LOOKBACK_PROPERTY,
  SERVICE_PROPERTY,
  SPAN_ID_PROPERTY,
  TRACE_ID_PROPERTY,
} from "./common-inputs.js";
import { searchPage } from "./paged-search.js";
import {
  ATTRIBUTES_OUTPUT,
  attributePairs,
  fewAttributes,
  MORE_ATTRIBUTES_OUTPUT,
  traceOutlineCall,
  withoutUndefined,
} from "./query-args.js";
import { ATTRIBUTES_CONTAIN_PROPERTY, limitProperty, routeLimit } from "./query-inputs.js";

/** The longest body a row carries whole: a row shows what a log says, not a whole payload. */
export const LOG_BODY_CHARS = 500;

export interface SearchLogsArgs {
  service?: string;
  severity?: string;
  trace_id?: string;
  span_id?: string;
  body?: string;
  attributes?: Record<string, string>;
  attributes_contain?: Record<string, string>;
  lookback?: string;
  limit?: number;
  cursor?: string;
  max_bytes?: number;
}

export interface LogRow {
  log_id: string;
  time: string;
  /** Null when the record has neither a severity text nor a number (0: unspecified). */
  severity: string | null;
  service: string;
  /** The body: a text body as its text, another as its JSON, cut to LOG_BODY_CHARS; null when it has none. */
  body: string | null;
  trace_id: string | null;
  span_id: string | null;
  attributes: Attributes;
  more_attributes: number;
}

export interface SearchLogsAnswer extends AnswerTail {
  lookback: string | null;
  logs: LogRow[];
}

/** OTLP's severity names, four numbers each (1-4 trace, ..., 21-24 fatal), as the severity filter knows them. */
const SEVERITY_NAMES = ["trace", "debug", "info", "warn", "error", "fatal"];

/**
 * The severity as obs groups it: the text, else the number's name, else the number; null for
 * a record with neither (number 0, unspecified), as the API answers it.
 */
export function severityOf(log: Pick<LogRecord, "severityText" | "severityNumber">): string | null {
  if (log.severityText !== null) return log.severityText;
  if (log.severityNumber === 0) return null;
  return SEVERITY_NAMES[Math.ceil(log.severityNumber / 4) - 1] ?? String(log.severityNumber);
}

export function logRow(log: LogRecord): LogRow {
  const body = logBodyText(log.body);
  const severity = severityOf(log);
  return {
    log_id: log.logId,
    time: log.timestamp,
    severity: severity === null ? null : cutString(severity),
    service: cutString(log.serviceName),
    body: body === null ? null : cutString(body, LOG_BODY_CHARS),
    trace_id: log.traceId,
    span_id: log.spanId,
    ...fewAttributes(log.attributes),
  };
}

function nextCalls(rows: readonly LogRow[], args: SearchLogsArgs): NextCall[] {
  const traced = rows.find((row) => row.trace_id !== null);
  if (!traced?.trace_id) return [];
  const calls: NextCall[] = [
    traceOutlineCall(traced.trace_id, "the outline of the trace of the first log with a trace"),
  ];
  if (args.trace_id === undefined || args.span_id !== undefined || args.lookback !== "24h") {
    calls.push({
      tool: "search_logs",
      arguments: { trace_id: traced.trace_id, lookback: "24h" },
      why: "every log of that trace",
    });
  }
  if (traced.span_id) {
    calls.push({
      tool: "get_span_details",
      arguments: { span_ids: [traced.span_id], trace_id: traced.trace_id },
      why: "the span that wrote the log",
    });
  }
  return calls.slice(0, 3);
}

const LOG_ROW_SCHEMA = {
  type: "object",
  properties: {
    log_id: { type: "string", description: "The record's content hash (the audit's evidence names logs by it)" },
    time: { type: "string", description: "ISO 8601" },
    severity: {
      type: ["string", "null"],
      description:
        "Severity text, else the number's name (trace, debug, info, warn, error, fatal); null when the record has neither",
    },
    service: { type: "string" },
    body: {
      type: ["string", "null"],
      description: `Text body, or another body's JSON; cut after ${LOG_BODY_CHARS} characters; null when the record has none`,
    },
    trace_id: { type: ["string", "null"] },
    span_id: { type: ["string", "null"] },
    attributes: ATTRIBUTES_OUTPUT,
    more_attributes: MORE_ATTRIBUTES_OUTPUT,
  },
  required: ["log_id", "time", "severity", "service", "body", "trace_id", "span_id", "attributes"],
} as const;

export const searchLogs: McpTool<SearchLogsArgs, SearchLogsAnswer> = {
  name: "search_logs",
  title: "Search logs",
  description:
    "Log records, newest first, filtered by service, severity, trace or span id, body text and attributes. Use it to read what the code logged around an error, or every log of one trace (trace_id with lookback 24h). Rows carry the body (cut at 500 characters) and the trace and span ids, so a log leads to its trace: call get_trace_outline with its trace_id. Default window 15m, at most 24h.",
  inputSchema: toolInput({
    service: SERVICE_PROPERTY,
    severity: {
      type: "string",
      description:
        "Case-insensitive substring of the severity text or of the number's name (trace, debug, info, warn, error, fatal): warn finds WARN and WARNING",
    },
    trace_id: { ...TRACE_ID_PROPERTY, description: "Only logs correlated to this trace (32 hex characters)" },
    span_id: { ...SPAN_ID_PROPERTY, description: "Only logs correlated to this span (16 hex characters)" },
    body: {
      type: "string",
      description:
        "Substring of the body, case-insensitive for ASCII letters: a text body is searched as its text, any other body (a map, a list) as its JSON",
    },
    attributes: {
      ...ATTRIBUTES_PROPERTY,
      description: 'Exact log attribute filters, key to value: {"http.route": "/cart"}',
    },
    attributes_contain: ATTRIBUTES_CONTAIN_PROPERTY,
    lookback: LOOKBACK_PROPERTY,
    limit: limitProperty("searchLogs", "Logs"),
    cursor: CURSOR_PROPERTY,
  }),
  outputSchema: toolOutput(
    {
      lookback: { type: ["string", "null"], description: "The window searched" },
      logs: { type: "array", items: LOG_ROW_SCHEMA },
    },
    ["lookback", "logs"],
  ),
  async run(args, ctx) {
    // The API's `body` and `contains` are one filter (contains wins); the tool sends `contains`.
    const filters = withoutUndefined({
      service: args.service,
      severity: args.severity,
      traceId: args.trace_id,
      spanId: args.span_id,
      contains: args.body,
      attr: attributePairs(args.attributes),
      attrContains: attributePairs(args.attributes_contain),
      lookback: args.lookback,
    });
    return searchPage({
      tool: "search_logs",
      noun: "logs",
      args,
      defaultLimit: routeLimit("searchLogs").default,
      maxBytes: ctx.maxBytes,
      fetch: (page) => ctx.api.searchLogs(withoutUndefined({ ...filters, ...page })),
      build: (logs, lookback, tail) => {
        const rows = logs.map(logRow);
        return { lookback, logs: rows, ...tail, next: nextCalls(rows, args) };
      },
    });
  },
};
