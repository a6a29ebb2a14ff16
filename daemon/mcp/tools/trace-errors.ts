/** `get_trace_errors`: what failed in one trace, and what its logs said about it. */
import type { LogRecord, SpanRecord } from "../../../shared/api-records.js";
import { logBodyText } from "../../../shared/log-text.js";
import { traceUrl } from "../../../shared/ui-links.js";
import { cutLongStrings, cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { TRACE_ID_PROPERTY } from "./common-inputs.js";
import { msBetween } from "./durations.js";
import { severityOf } from "./logs.js";
import {
  continuationCall,
  criticalPathCall,
  spanDetailsCall,
  traceLogsCall,
  traceOutlineCall,
  traceSpansSearchCall,
} from "./next-calls.js";
import { type ExceptionRecord, exceptionOf, stackHead } from "./span-detail-record.js";
import { EXCEPTION_SCHEMA } from "./span-detail-schema.js";
import { label } from "./telemetry-text.js";
import { fetchTraceSpans, isErrorSpan, TRACE_SPAN_CAP, traceStartNs } from "./trace-spans.js";
import { UI_URL_PROPERTY } from "./ui-links.js";

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
  /** Null when the record has neither a severity text nor a number, as the API answers it. */
  severity: string | null;
  span_id: string | null;
  service: string;
  /** Null when the record has no body. */
  body: string | null;
}

interface TraceErrorsAnswer extends AnswerTail {
  trace_id: string;
  ui_url: string;
  error_span_count: number;
  spans_read: number;
  trace_spans_over_cap: boolean;
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

type Item = { span: ErrorSpanRow } | { log: LogRow };

/** get_trace_errors reading at most `spanCap` spans a call (a test lowers it). */
export function traceErrorsTool(spanCap: number): McpTool<TraceErrorsArgs, TraceErrorsAnswer> {
  return {
    name: "get_trace_errors",
    title: "Trace errors",
    description: `What went wrong in one trace: its error spans (error status or an exception event) with the status message and each exception's type, message and first stack lines, then the logs correlated to the trace, warnings and errors first. Use it on a failed trace from search_traces or an outline row with err 1; then get_span_details on the likeliest cause (the first call in next: a span that threw, else a failed span none of whose children failed), or search_logs with its span_id. Error spans come before logs; a large answer continues with the offset in the continuation. At most ${TRACE_SPAN_CAP} spans and ${LOG_LIMIT} logs are read: beyond that truncated is true, trace_spans_over_cap or more_logs says which, and search_spans or search_logs with the trace_id reads the rest.`,
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
        ui_url: UI_URL_PROPERTY,
        error_span_count: { type: "integer", description: "Error spans among the spans read" },
        spans_read: { type: "integer", description: `Spans read: at most ${TRACE_SPAN_CAP}` },
        trace_spans_over_cap: {
          type: "boolean",
          description: "The trace has more spans than one call reads: error spans past them are not shown",
        },
        log_count: { type: "integer", description: `Logs correlated to the trace (at most ${LOG_LIMIT} read)` },
        more_logs: {
          type: "boolean",
          description: "The trace has more logs than were read (truncated is then true): search_logs with its trace_id",
        },
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
              severity: { type: ["string", "null"], description: "Null when the record has neither text nor number" },
              span_id: { type: ["string", "null"] },
              service: { type: "string" },
              body: {
                type: ["string", "null"],
                description: `Cut past ${TEXT_CHARS} characters; JSON text when not a string; null when none`,
              },
            },
            required: ["time", "severity", "span_id", "service", "body"],
          },
        },
      },
      [
        "trace_id",
        "ui_url",
        "error_span_count",
        "spans_read",
        "trace_spans_over_cap",
        "log_count",
        "more_logs",
        "offset",
        "error_spans",
        "logs",
      ],
    ),
    async run(args, ctx) {
      const traceId = args.trace_id.toLowerCase();
      const { spans, overCap } = await fetchTraceSpans(ctx.api, traceId, spanCap);
      const logPage = await ctx.api.traceLogs({ traceId, limit: LOG_LIMIT });
      const startNs = traceStartNs(spans);
      const errorSpans = spans.filter(isErrorSpan).map((span) => errorRowOf(span, startNs));
      const logs = warningsFirst(logPage.data).map(logRowOf);
      const items: Item[] = [...errorSpans.map((span) => ({ span })), ...logs.map((log) => ({ log }))];
      const offset = Math.min(args.offset ?? 0, items.length);
      const moreLogs = logPage.meta.nextCursor !== null;
      const next = nextCalls(traceId, likeliestCause(spans.filter(isErrorSpan), errorSpans), { overCap, moreLogs });
      const build = (shown: readonly Item[], truncated: boolean, tight = false): TraceErrorsAnswer => ({
        trace_id: traceId,
        ui_url: traceUrl(ctx.baseUrl, traceId),
        error_span_count: errorSpans.length,
        spans_read: spans.length,
        trace_spans_over_cap: overCap,
        log_count: logs.length,
        more_logs: moreLogs,
        offset,
        error_spans: shown.flatMap((item) => ("span" in item ? [item.span] : [])),
        logs: shown.flatMap((item) => ("log" in item ? [item.log] : [])),
        // Spans past the cap and logs past LOG_LIMIT are left out too: `next` leads to them.
        truncated: truncated || overCap || moreLogs,
        ...(truncated
          ? {
              continuation: continuationCall(
                "get_trace_errors",
                { trace_id: traceId, offset: offset + shown.length },
                args.max_bytes,
                "the error spans and logs that did not fit max_bytes",
              ),
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
      const cut =
        offset + kept < items.length ? `; ${items.length - offset - kept} items left for the continuation` : "";
      const capped = overCap
        ? ` The trace has more than ${spans.length} spans, the most one call reads: error spans past them are not shown (search_spans with the trace_id and status error).`
        : "";
      const logsLeft = moreLogs
        ? ` The trace has more than ${LOG_LIMIT} logs: search_logs with the trace_id reads the rest.`
        : "";
      return {
        structured: answer,
        summary: `Trace ${traceId}: ${errorSpans.length} error spans of ${spans.length}; ${logs.length} correlated logs (${warnings} warnings or worse)${cut}.${capped}${logsLeft}`,
      };
    },
  };
}

export const getTraceErrors = traceErrorsTool(TRACE_SPAN_CAP);

function tightItem(item: Item): Item {
  if ("log" in item) return { log: cutLongStrings(item.log, TIGHT_CHARS) };
  const exceptions = item.span.exceptions.map((exception) => ({ ...exception, stack: null }));
  return { span: cutLongStrings({ ...item.span, exceptions }, TIGHT_CHARS) };
}

function errorRowOf(span: SpanRecord, startNs: bigint): ErrorSpanRow {
  return {
    span_id: span.spanId,
    name: cutString(span.operation, TEXT_CHARS),
    service: cutString(span.serviceName),
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

function logRowOf(log: LogRecord): LogRow {
  const severity = severityOf(log);
  const body = logBodyText(log.body);
  return {
    time: log.timestamp,
    severity: severity === null ? null : cutString(severity),
    span_id: log.spanId,
    service: cutString(log.serviceName),
    body: body === null ? null : cutString(body, TEXT_CHARS),
  };
}

/**
 * The error span most likely to be the cause, for `next`: one that recorded an exception,
 * and that is no failed span's parent (a failure that only passed a child's failure up tells
 * less than the child); the earliest such. `failing[i]` is the span of `rows[i]`.
 */
function likeliestCause(failing: readonly SpanRecord[], rows: readonly ErrorSpanRow[]): SpanRecord | undefined {
  const parents = new Set(failing.map((span) => span.parentSpanId));
  let best: SpanRecord | undefined;
  let bestScore = -1;
  rows.forEach((row, i) => {
    const score = (row.exceptions.length > 0 ? 2 : 0) + (parents.has(failing[i]?.spanId ?? null) ? 0 : 1);
    if (score > bestScore) {
      best = failing[i];
      bestScore = score;
    }
  });
  return best;
}

/**
 * Where the rest is when the trace is over the span cap or has more logs than were read; then
 * the likeliest cause's details and logs, or the outline when nothing failed.
 */
function nextCalls(
  traceId: string,
  first: SpanRecord | undefined,
  left: { overCap: boolean; moreLogs: boolean },
): NextCall[] {
  const rest: NextCall[] = [];
  if (left.overCap) {
    const search = traceSpansSearchCall(traceId, "the trace is over the span cap: its error spans, paged");
    rest.push({ ...search, arguments: { ...search.arguments, status: "error" } });
  }
  if (left.moreLogs) rest.push(traceLogsCall(traceId, `the trace's logs past the first ${LOG_LIMIT}, paged`));
  if (first === undefined)
    return [
      ...rest,
      traceOutlineCall(traceId, "no span failed: the trace's shape"),
      criticalPathCall(traceId, "what bounds its duration"),
    ];
  const name = label(first.operation);
  return [
    spanDetailsCall(traceId, [first.spanId], `the likeliest cause (${name}): attributes and events`),
    ...rest,
    traceLogsCall(traceId, `the logs written during ${name}`, first.spanId),
    traceOutlineCall(traceId, "where the errors sit in the trace"),
  ];
}
