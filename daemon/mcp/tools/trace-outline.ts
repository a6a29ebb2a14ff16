/** `get_trace_outline`: a trace's shape, span by span, in a few bytes per span. */
import { nsToIso } from "../../../shared/time.js";
import { fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { TRACE_ID_PROPERTY } from "./common-inputs.js";
import { OUTLINE_COLUMNS, type OutlineRow, outlineRows } from "./trace-outline-rows.js";
import { fetchTraceSpans, msBetween, traceEndNs } from "./trace-spans.js";

interface TraceOutlineArgs {
  trace_id: string;
  offset?: number;
  max_depth?: number;
  max_bytes?: number;
}

interface TraceOutlineAnswer extends AnswerTail {
  trace_id: string;
  start: string;
  duration_ms: number;
  span_count: number;
  services: string[];
  columns: string[];
  rows: OutlineRow[];
  offset: number;
  deeper_spans: number;
}

const ROW_DESCRIPTION =
  "One array per span, in depth-first order (each span followed by its descendants, children by start time; spans whose parent is missing come after, as roots at depth 0), holding the columns in order: id (span id), parent (parent span id or null), name (cut past 80 characters), svc (index into services), start_ms (offset from the trace's start, ms, rounded to 0.001), dur_ms (duration, ms, rounded to 0.001), status (unset, ok or error), err (1 when the span has error status or an exception event, else 0), depth (0 for a root)";

export const getTraceOutline: McpTool<TraceOutlineArgs, TraceOutlineAnswer> = {
  name: "get_trace_outline",
  title: "Trace outline",
  description:
    "The shape of one trace: every span as a short row (id, parent, name, service, start offset and duration in ms, status, error marker, depth) in depth-first order, about 80 bytes a span, without attributes. Use it after search_traces to see where time went and which spans failed, then get_span_details for the few spans that matter, get_trace_errors for failures, or get_critical_path for what bounds the duration. A large trace is answered in parts: follow the continuation (same trace_id, the next offset) until truncated is false. max_depth leaves out deeper spans (counted in deeper_spans).",
  inputSchema: toolInput(
    {
      trace_id: TRACE_ID_PROPERTY,
      offset: {
        type: "integer",
        minimum: 0,
        description: "Where to start in the depth-first order (0: the first span); a continuation sets it",
      },
      max_depth: {
        type: "integer",
        minimum: 0,
        description: "Leave out spans deeper than this (0: only roots); the offset counts the spans kept",
      },
    },
    ["trace_id"],
  ),
  outputSchema: toolOutput(
    {
      trace_id: { type: "string" },
      start: { type: "string", description: "The trace's first span start, ISO 8601; start_ms counts from it" },
      duration_ms: { type: "number", description: "From the first span start to the last span end" },
      span_count: { type: "integer", description: "Spans in the trace (all of them, whatever max_depth)" },
      services: { type: "array", items: { type: "string" }, description: "The trace's services; svc indexes this" },
      columns: { type: "array", items: { type: "string" }, description: "The names of a row's values, in order" },
      rows: { type: "array", items: { type: "array" }, description: ROW_DESCRIPTION },
      offset: { type: "integer", description: "The depth-first position of the first row" },
      deeper_spans: { type: "integer", description: "Spans left out because they lie deeper than max_depth" },
    },
    ["trace_id", "start", "duration_ms", "span_count", "services", "columns", "rows", "offset", "deeper_spans"],
  ),
  async run(args, ctx) {
    const traceId = args.trace_id.toLowerCase();
    const spans = await fetchTraceSpans(ctx.api, traceId);
    const outline = outlineRows(spans, args.max_depth);
    const offset = Math.min(args.offset ?? 0, outline.rows.length);
    const rest = outline.rows.slice(offset);
    const header = {
      trace_id: traceId,
      start: nsToIso(outline.startNs),
      duration_ms: msBetween(outline.startNs, traceEndNs(spans)),
      span_count: spans.length,
      services: outline.services,
      columns: [...OUTLINE_COLUMNS],
    };
    const next = nextCalls(traceId, outline.rows);
    const continueFrom = (at: number): NextCall => ({
      tool: "get_trace_outline",
      arguments: { trace_id: traceId, offset: at, ...depthAndBudget(args) },
      why: `the spans after the first ${at} of ${outline.rows.length}`,
    });
    const { answer, kept } = fitItems(rest, ctx.maxBytes, (rows, truncated) => ({
      ...header,
      rows: [...rows],
      offset,
      deeper_spans: outline.deeper,
      truncated,
      ...(truncated ? { continuation: continueFrom(offset + rows.length) } : {}),
      next,
    }));
    const shown = kept === outline.rows.length ? "all" : `${kept} (from ${offset})`;
    const deeper = outline.deeper ? `; ${outline.deeper} deeper than max_depth left out` : "";
    const more = kept < rest.length ? "; follow the continuation for the rest" : "";
    return {
      structured: answer,
      summary: `Trace ${traceId}: ${spans.length} spans over ${header.duration_ms} ms in ${outline.services.length} services; ${shown} of ${outline.rows.length} rows shown${deeper}${more}.`,
    };
  },
};

function depthAndBudget(args: TraceOutlineArgs): Record<string, number> {
  return {
    ...(args.max_depth === undefined ? {} : { max_depth: args.max_depth }),
    ...(args.max_bytes === undefined ? {} : { max_bytes: args.max_bytes }),
  };
}

/** The slowest non-root span's details, the errors when any span failed, the critical path. */
function nextCalls(traceId: string, rows: readonly OutlineRow[]): NextCall[] {
  const next: NextCall[] = [];
  let slowest: OutlineRow | undefined;
  for (const row of rows) if (row[8] > 0 && (slowest === undefined || row[5] > slowest[5])) slowest = row;
  slowest ??= rows[0];
  if (slowest !== undefined)
    next.push({
      tool: "get_span_details",
      arguments: { span_ids: [slowest[0]], trace_id: traceId },
      why: `the slowest span (${slowest[2]}, ${slowest[5]} ms): attributes and events`,
    });
  const errors = rows.filter((row) => row[7] === 1).length;
  if (errors > 0)
    next.push({
      tool: "get_trace_errors",
      arguments: { trace_id: traceId },
      why: `${errors} spans failed: their messages, exceptions and logs`,
    });
  next.push({ tool: "get_critical_path", arguments: { trace_id: traceId }, why: "the spans that bound the duration" });
  return next;
}
