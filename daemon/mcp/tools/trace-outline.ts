/** `get_trace_outline`: a trace's shape, span by span, in a few bytes per span. */
import { nsToIso } from "../../../shared/time.js";
import { traceUrl } from "../../../shared/ui-links.js";
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { TRACE_ID_PROPERTY } from "./common-inputs.js";
import { msBetween } from "./durations.js";
import {
  continuationCall,
  criticalPathCall,
  spanDetailsCall,
  traceErrorsCall,
  traceSpansSearchCall,
} from "./next-calls.js";
import { OUTLINE_COLUMNS, type OutlineRow, outlineRows } from "./trace-outline-rows.js";
import { fetchTraceSpans, TRACE_SPAN_CAP, traceEndNs } from "./trace-spans.js";
import { UI_URL_PROPERTY } from "./ui-links.js";

interface TraceOutlineArgs {
  trace_id: string;
  offset?: number;
  max_depth?: number;
  max_bytes?: number;
}

interface TraceOutlineAnswer extends AnswerTail {
  trace_id: string;
  ui_url: string;
  start: string;
  duration_ms: number;
  span_count: number;
  spans_read: number;
  trace_spans_over_cap: boolean;
  services: string[];
  columns: string[];
  rows: OutlineRow[];
  offset: number;
  deeper_spans: number;
}

const ROW_DESCRIPTION =
  "One array per span, in depth-first order (each span followed by its descendants, children by start time; spans whose parent is missing come after, as roots at depth 0), holding the columns in order: id (span id), parent (parent span id or null), name (cut past 80 characters), svc (index into services), start_ms (offset from the trace's start, ms, rounded to 0.001), dur_ms (duration, ms, rounded to 0.001), status (unset, ok or error), err (1 when the span has error status or an exception event, else 0), depth (0 for a root)";

/** get_trace_outline reading at most `spanCap` spans a call (a test lowers it). */
export function traceOutlineTool(spanCap: number): McpTool<TraceOutlineArgs, TraceOutlineAnswer> {
  return {
    name: "get_trace_outline",
    title: "Trace outline",
    description: `The shape of one trace: every span as a short row (id, parent, name, service, start offset and duration in ms, status, error marker, depth) in depth-first order, in a few bytes a span, without attributes. Use it after search_traces to see where time went and which spans failed, then get_span_details for the few spans that matter, get_trace_errors for failures, or get_critical_path for what bounds the duration. A large trace is answered in parts: follow the continuation (same trace_id, the next offset) until truncated is false. max_depth leaves out deeper spans (counted in deeper_spans). At most ${TRACE_SPAN_CAP} spans (the first in start order) are read: beyond that trace_spans_over_cap is true and search_spans with the trace_id reads the rest.`,
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
        ui_url: UI_URL_PROPERTY,
        start: { type: "string", description: "The trace's first span start, ISO 8601; start_ms counts from it" },
        duration_ms: { type: "number", description: "From the first span start to the last span end" },
        span_count: {
          type: "integer",
          description: "Spans read (all of the trace's unless over the cap), whatever max_depth",
        },
        spans_read: { type: "integer", description: `Spans read: at most ${TRACE_SPAN_CAP}` },
        trace_spans_over_cap: {
          type: "boolean",
          description: "The trace has more spans than one call reads: the rows cover the first spans only",
        },
        services: { type: "array", items: { type: "string" }, description: "The trace's services; svc indexes this" },
        columns: { type: "array", items: { type: "string" }, description: "The names of a row's values, in order" },
        rows: { type: "array", items: { type: "array" }, description: ROW_DESCRIPTION },
        offset: { type: "integer", description: "The depth-first position of the first row" },
        deeper_spans: { type: "integer", description: "Spans left out because they lie deeper than max_depth" },
      },
      [
        "trace_id",
        "ui_url",
        "start",
        "duration_ms",
        "span_count",
        "spans_read",
        "trace_spans_over_cap",
        "services",
        "columns",
        "rows",
        "offset",
        "deeper_spans",
      ],
    ),
    async run(args, ctx) {
      const traceId = args.trace_id.toLowerCase();
      const { spans, overCap } = await fetchTraceSpans(ctx.api, traceId, spanCap);
      const outline = outlineRows(spans, args.max_depth);
      const offset = Math.min(args.offset ?? 0, outline.rows.length);
      const rest = outline.rows.slice(offset);
      const header = {
        trace_id: traceId,
        ui_url: traceUrl(ctx.baseUrl, traceId),
        start: nsToIso(outline.startNs),
        duration_ms: msBetween(outline.startNs, traceEndNs(spans)),
        span_count: spans.length,
        spans_read: spans.length,
        trace_spans_over_cap: overCap,
        services: outline.services.map((service) => cutString(service)),
        columns: [...OUTLINE_COLUMNS],
      };
      const next = nextCalls(traceId, outline.rows, overCap);
      const continueFrom = (at: number): NextCall =>
        continuationCall(
          "get_trace_outline",
          { trace_id: traceId, offset: at, ...(args.max_depth === undefined ? {} : { max_depth: args.max_depth }) },
          args.max_bytes,
          `the spans after the first ${at} of ${outline.rows.length}`,
        );
      const { answer, kept } = fitItems(rest, ctx.maxBytes, (rows, cut) => ({
        ...header,
        rows: [...rows],
        offset,
        deeper_spans: outline.deeper,
        // Spans past the cap are left out too, though no continuation of this tool reaches them.
        truncated: cut || overCap,
        ...(cut ? { continuation: continueFrom(offset + rows.length) } : {}),
        next,
      }));
      const shown = kept === outline.rows.length ? "all" : `${kept} (from ${offset})`;
      const deeper = outline.deeper ? `; ${outline.deeper} deeper than max_depth left out` : "";
      const more = kept < rest.length ? "; follow the continuation for the rest" : "";
      const capped = overCap
        ? ` The trace has more than ${spans.length} spans, the most one call reads: the outline covers the first ${spans.length} in start order; search_spans with the trace_id reads the rest.`
        : "";
      return {
        structured: answer,
        summary: `Trace ${traceId}: ${spans.length}${overCap ? "+" : ""} spans over ${header.duration_ms} ms in ${outline.services.length} services; ${shown} of ${outline.rows.length} rows shown${deeper}${more}.${capped}`,
      };
    },
  };
}

export const getTraceOutline = traceOutlineTool(TRACE_SPAN_CAP);

/**
 * The slowest non-root span's details, the errors when any span failed, the critical path; for
 * a trace over the cap, search_spans over it first (it pages through every span).
 */
function nextCalls(traceId: string, rows: readonly OutlineRow[], overCap: boolean): NextCall[] {
  const next: NextCall[] = [];
  if (overCap) next.push(traceSpansSearchCall(traceId, "the trace is over the outline's span cap: every span, paged"));
  let slowest: OutlineRow | undefined;
  for (const row of rows) if (row[8] > 0 && (slowest === undefined || row[5] > slowest[5])) slowest = row;
  slowest ??= rows[0];
  if (slowest !== undefined)
    next.push(
      spanDetailsCall(
        traceId,
        [slowest[0]],
        `the slowest span (${slowest[2]}, ${slowest[5]} ms): attributes and events`,
      ),
    );
  const errors = rows.filter((row) => row[7] === 1).length;
  if (errors > 0) next.push(traceErrorsCall(traceId, `${errors} spans failed: their messages, exceptions and logs`));
  next.push(criticalPathCall(traceId, "the spans that bound the duration"));
  return next;
}
