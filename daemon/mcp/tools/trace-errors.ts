/** `get_trace_errors`: what failed in one trace, and what its logs said about it. */
import type { JsonValue, LogRecord, SpanRecord } from "../../../shared/api-records.js";
import { cutLongStrings, cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { TRACE_ID_PROPERTY } from "./common-inputs.js";
import { type ExceptionRecord, exceptionOf, stackHead } from "./span-detail-record.js";
import { EXCEPTION_SCHEMA } from "./span-detail-schema.js";
import { fetchTraceSpans, isErrorSpan, msBetween, traceStartNs } from "./trace-spans.js";

interface TraceErrorsArgs {
  trace_id: string;
  offset?: number;
  max_bytes?: number;
}

interface ErrorSpanRow {
  span_id: string;
  name: string;
  service: string;
  start_ms: number;
  duration_ms: number;
  status_message: string | null;
  exceptions: ExceptionRecord[];
}

interface LogRow {
  time: string;
  severity: string;
  span_id: string | null;
  service: string;
  body: string;
}

interface TraceErrorsAnswer extends AnswerTail {
  trace_id: string;
  error_span_count: number;
  log_count: number;
  more_logs: boolean;
  offset: number;
  error_spans: ErrorSpanRow[];
  logs: LogRow[];
}

/**
 * Logs asked of the trace: the API's cap, so the warnings among them come first even when many
 * info logs are newer; more_logs says when the trace had more.
 */
const LOG_LIMIT = 500;
/** OTLP severity numbers from 13 up are warnings, errors and fatals: shown first. */
const WARN_SEVERITY = 13;
const STACK_LINES = 8;
const TEXT_CHARS = 500;
/** Strings in an answer whose first item would not fit max_bytes otherwise. */
const TIGHT_CHARS = 60;
const SEVERITY_NAMES = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];

type Item = { span: ErrorSpanRow } | { log: LogRow };

export const getTraceErrors: McpTool<TraceErrorsArgs, TraceErrorsAnswer> = {
  name: "get_trace_errors",
  title: "Trace errors",
  description:
    "What went wrong in one trace: its error spans (error status or an exception event) with the status message and each exception's type, message and first stack lines, then the logs correlated to the trace, warnings and errors first. Use it on a failed trace from search_traces or an outline row with err 1; then get_span_details on the first error span for its attributes, or search_logs with its span_id. Error spans come before logs; a large answer continues with the offset in the continuation.",
  inputSchema: toolInput(
    {
      trace_id: TRACE_ID_PROPERTY,
      offset: {
        type: "integer",
        minimum: 0,
        description: "Where to start in the error spans followed by the logs (0: the first); a continuation sets it",
      },
    },
    ["trace_id"],
  ),
  outputSchema: toolOutput(
    {
      trace_id: { type: "string" },
      error_span_count: { type: "integer", description: "Error spans in the trace" },
      log_count: { type: "integer", description: `Logs correlated to the trace (at most ${LOG_LIMIT} read)` },
      more_logs: { type: "boolean", description: "The trace has more logs: search_logs with its trace_id" },
      offset: { type: "integer", description: "Position of the first item shown: error spans, then logs" },
      error_spans: {
        type: "array",
        description: "In start order",
        items: {
          type: "object",
          properties: {
            span_id: { type: "string" },
            name: { type: "string" },
            service: { type: "string" },
            start_ms: { type: "number", description: "Offset from the trace's start" },
            duration_ms: { type: "number" },
            status_message: { type: ["string", "null"] },
            exceptions: { type: "array", items: EXCEPTION_SCHEMA, description: `Stacks cut to ${STACK_LINES} lines` },
          },
          required: ["span_id", "name", "service", "start_ms", "duration_ms", "status_message", "exceptions"],
        },
      },
      logs: {
        type: "array",
        description: "Severity WARN and above first, then the others; newest first within each",
        items: {
          type: "object",
          properties: {
            time: { type: "string" },
            severity: { type: "string" },
            span_id: { type: ["string", "null"] },
            service: { type: "string" },
            body: { type: "string", description: `Cut past ${TEXT_CHARS} characters; JSON text when not a string` },
          },
          required: ["time", "severity", "span_id", "service", "body"],
        },
      },
    },
    ["trace_id", "error_span_count", "log_count", "more_logs", "offset", "error_spans", "logs"],
  ),
  async run(args, ctx) {
    const traceId = args.trace_id.toLowerCase();
    const spans = await fetchTraceSpans(ctx.api, traceId);
    const logPage = await ctx.api.traceLogs({ traceId, limit: LOG_LIMIT });
    const startNs = traceStartNs(spans);
    const errorSpans = spans.filter(isErrorSpan).map((span) => errorRowOf(span, startNs));
    const logs = warningsFirst(logPage.data).map(logRowOf);
    const items: Item[] = [...errorSpans.map((span) => ({ span })), ...logs.map((log) => ({ log }))];
    const offset = Math.min(args.offset ?? 0, items.length);
    const next = nextCalls(traceId, errorSpans[0]);
    const build = (shown: readonly Item[], truncated: boolean, tight = false): TraceErrorsAnswer => ({
      trace_id: traceId,
      error_span_count: errorSpans.length,
      log_count: logs.length,
      more_logs: logPage.meta.nextCursor !== null,
      offset,
      error_spans: shown.flatMap((item) => ("span" in item ? [item.span] : [])),
      logs: shown.flatMap((item) => ("log" in item ? [item.log] : [])),
      truncated,
      ...(truncated
        ? {
            continuation: {
              tool: "get_trace_errors",
              arguments: {
                trace_id: traceId,
                offset: offset + shown.length,
                ...(args.max_bytes === undefined ? {} : { max_bytes: args.max_bytes }),
              },
              why: "the error spans and logs that did not fit max_bytes",
            },
          }
        : {}),
      next: tight ? next.slice(0, 1) : next,
    });
    const rest = items.slice(offset);
    let { answer, kept } = fitItems(rest, ctx.maxBytes, build);
    // Not even one item fits a small max_bytes: rather than none, show them with strings cut
    // short, stacks left out and only the first next call.
    if (kept === 0 && rest.length > 0)
      ({ answer, kept } = fitItems(rest.map(tightItem), ctx.maxBytes, (shown, truncated) =>
        build(shown, truncated, true),
      ));
    const warnings = logPage.data.filter((log) => log.severityNumber >= WARN_SEVERITY).length;
    const cut = offset + kept < items.length ? `; ${items.length - offset - kept} items left for the continuation` : "";
    return {
      structured: answer,
      summary: `Trace ${traceId}: ${errorSpans.length} error spans of ${spans.length}; ${logs.length} correlated logs (${warnings} warnings or worse)${cut}.`,
    };
  },
};

function tightItem(item: Item): Item {
  if ("log" in item) return { log: cutLongStrings(item.log, TIGHT_CHARS) };
  const exceptions = item.span.exceptions.map((exception) => ({ ...exception, stack: null }));
  return { span: cutLongStrings({ ...item.span, exceptions }, TIGHT_CHARS) };
}

function errorRowOf(span: SpanRecord, startNs: bigint): ErrorSpanRow {
  return {
    span_id: span.spanId,
    name: cutString(span.operation, TEXT_CHARS),
    service: span.serviceName,
    start_ms: msBetween(startNs, span.startTimeUnixNano),
    duration_ms: msBetween(span.startTimeUnixNano, span.endTimeUnixNano),
    status_message: span.status.message === null ? null : cutString(span.status.message, TEXT_CHARS),
    exceptions: span.events.flatMap((event) => {
      const exception = exceptionOf(event, TEXT_CHARS, Number.POSITIVE_INFINITY);
      if (exception === undefined) return [];
      return [
        {
          ...exception,
          stack: exception.stack === null ? null : cutString(stackHead(exception.stack, STACK_LINES), 1000),
        },
      ];
    }),
  };
}

/** Warnings and worse first (the API's newest-first order kept within each group). */
export function warningsFirst(logs: readonly LogRecord[]): LogRecord[] {
  return [
    ...logs.filter((log) => log.severityNumber >= WARN_SEVERITY),
    ...logs.filter((log) => log.severityNumber < WARN_SEVERITY),
  ];
}

function bodyText(body: JsonValue): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

function logRowOf(log: LogRecord): LogRow {
  return {
    time: log.timestamp,
    severity: log.severityText ?? SEVERITY_NAMES[Math.ceil(log.severityNumber / 4) - 1] ?? String(log.severityNumber),
    span_id: log.spanId,
    service: log.serviceName,
    body: cutString(bodyText(log.body), TEXT_CHARS),
  };
}

/** The first error span's details and logs; the outline when nothing failed. */
function nextCalls(traceId: string, first: ErrorSpanRow | undefined): NextCall[] {
  if (first === undefined)
    return [
      { tool: "get_trace_outline", arguments: { trace_id: traceId }, why: "no span failed: the trace's shape" },
      { tool: "get_critical_path", arguments: { trace_id: traceId }, why: "what bounds its duration" },
    ];
  return [
    {
      tool: "get_span_details",
      arguments: { span_ids: [first.span_id], trace_id: traceId },
      why: `the first error span (${first.name}): attributes and events`,
    },
    {
      tool: "search_logs",
      arguments: { trace_id: traceId, span_id: first.span_id },
      why: "the logs written during the first error span",
    },
    { tool: "get_trace_outline", arguments: { trace_id: traceId }, why: "where the errors sit in the trace" },
  ];
}
