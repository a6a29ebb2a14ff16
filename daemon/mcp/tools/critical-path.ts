/** `get_critical_path`: the spans a trace's duration waits on, and how long each holds it up. */
import type { SpanRecord } from "../../../shared/api-records.js";
import { criticalPath } from "../../../shared/trace/critical-path.js";
import { traceUrl } from "../../../shared/ui-links.js";
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { TRACE_ID_PROPERTY } from "./common-inputs.js";
import { msBetween, roundMs } from "./durations.js";
import {
  continuationCall,
  spanDetailsCall,
  traceErrorsCall,
  traceOutlineCall,
  traceSpansSearchCall,
} from "./next-calls.js";
import { quoted } from "./telemetry-text.js";
import { OUTLINE_NAME_CHARS } from "./trace-outline-rows.js";
import { fetchTraceSpans, TRACE_SPAN_CAP } from "./trace-spans.js";
import { UI_URL_PROPERTY } from "./ui-links.js";

interface CriticalPathArgs {
  trace_id: string;
  offset?: number;
  max_bytes?: number;
}

interface PathRow {
  span_id: string;
  name: string;
  service: string;
  start_ms: number;
  self_ms: number;
  duration_ms: number;
}

interface HeavySpan {
  span_id: string;
  name: string;
  self_ms: number;
}

interface CriticalPathAnswer extends AnswerTail {
  trace_id: string;
  ui_url: string;
  root_span_id: string | null;
  path_ms: number;
  spans_read: number;
  trace_spans_over_cap: boolean;
  heaviest: HeavySpan[];
  offset: number;
  section_count: number;
  path: PathRow[];
}

/** How many spans `heaviest` names. */
const HEAVIEST = 5;

const ROW_SCHEMA = {
  type: "object",
  properties: {
    span_id: { type: "string" },
    name: { type: "string", description: "The span's name (cut past 80 characters)" },
    service: { type: "string" },
    start_ms: { type: "number", description: "Where this stretch starts, ms from the walked root's start" },
    self_ms: { type: "number", description: "How long the path stays in this span's own work here, ms" },
    duration_ms: { type: "number", description: "The span's whole duration, ms" },
  },
  required: ["span_id", "name", "service", "start_ms", "self_ms", "duration_ms"],
} as const;

/** get_critical_path reading at most `spanCap` spans a call (a test lowers it). */
export function criticalPathTool(spanCap: number): McpTool<CriticalPathArgs, CriticalPathAnswer> {
  return {
    name: "get_critical_path",
    title: "Trace critical path",
    description: `The critical path of one trace, as Jaeger computes it: the chain of spans its duration waits on, walked from the root by always following the child that finishes last. Each row is a stretch of time in one span's own work (self_ms), in time order; a span appears again after a child returns. heaviest sums self time per span. Use it to learn what to optimise in a slow trace (the spans with the most self time), then get_span_details on them. Children running past their parent are cut at its end; async children starting after it are not on the path; with several roots the longest is walked. At most ${TRACE_SPAN_CAP} spans (the first in start order) are read: beyond that trace_spans_over_cap is true and the path is of those spans only.`,
    inputSchema: toolInput(
      {
        trace_id: TRACE_ID_PROPERTY,
        offset: {
          type: "integer",
          minimum: 0,
          description: "Where to start in the path's rows (0: the first); a continuation sets it",
        },
      },
      ["trace_id"],
    ),
    outputSchema: toolOutput(
      {
        trace_id: { type: "string" },
        ui_url: UI_URL_PROPERTY,
        root_span_id: { type: ["string", "null"], description: "The root the path starts from" },
        path_ms: { type: "number", description: "The path's length: the root's duration, ms" },
        spans_read: { type: "integer", description: `Spans read: at most ${TRACE_SPAN_CAP}` },
        trace_spans_over_cap: {
          type: "boolean",
          description: "The trace has more spans than one call reads: the path is walked over the first spans only",
        },
        heaviest: {
          type: "array",
          description: `The ${HEAVIEST} spans with the most self time on the path, most first`,
          items: {
            type: "object",
            properties: { span_id: { type: "string" }, name: { type: "string" }, self_ms: { type: "number" } },
            required: ["span_id", "name", "self_ms"],
          },
        },
        offset: { type: "integer", description: "The position of the first row in the whole path" },
        section_count: { type: "integer", description: "Rows in the whole path" },
        path: { type: "array", items: ROW_SCHEMA, description: "The path's stretches, in time order" },
      },
      [
        "trace_id",
        "ui_url",
        "root_span_id",
        "path_ms",
        "spans_read",
        "trace_spans_over_cap",
        "heaviest",
        "offset",
        "section_count",
        "path",
      ],
    ),
    async run(args, ctx) {
      const traceId = args.trace_id.toLowerCase();
      const { spans, overCap } = await fetchTraceSpans(ctx.api, traceId, spanCap);
      const walked = criticalPath(spans);
      const root = spans[walked.root];
      const rows = walked.sections.map((section): PathRow => {
        const span = spans[section.index] as SpanRecord;
        return {
          span_id: span.spanId,
          name: cutString(span.operation, OUTLINE_NAME_CHARS),
          service: cutString(span.serviceName),
          start_ms: root === undefined ? 0 : msBetween(root.startTimeUnixNano, section.startNs),
          self_ms: msBetween(section.startNs, section.endNs),
          duration_ms: msBetween(span.startTimeUnixNano, span.endTimeUnixNano),
        };
      });
      const heaviest = heaviestSpans(rows);
      const pathMs = root === undefined ? 0 : msBetween(root.startTimeUnixNano, root.endTimeUnixNano);
      const offset = Math.min(args.offset ?? 0, rows.length);
      const next = nextCalls(traceId, heaviest, overCap);
      const { answer, kept } = fitItems(rows.slice(offset), ctx.maxBytes, (path, truncated) => ({
        trace_id: traceId,
        ui_url: traceUrl(ctx.baseUrl, traceId),
        root_span_id: root?.spanId ?? null,
        path_ms: pathMs,
        spans_read: spans.length,
        trace_spans_over_cap: overCap,
        heaviest,
        offset,
        section_count: rows.length,
        path: [...path],
        // Spans past the cap are left out too, though no continuation of this tool reaches them.
        truncated: truncated || overCap,
        ...(truncated
          ? {
              continuation: continuationCall(
                "get_critical_path",
                { trace_id: traceId, offset: offset + path.length },
                args.max_bytes,
                `the path's rows after the first ${offset + path.length} of ${rows.length}`,
              ),
            }
          : {}),
        next,
      }));
      const top = heaviest[0];
      // Named whole, to be cut once: the row's name is already cut for the outline's width.
      const topName = spans.find((span) => span.spanId === top?.span_id)?.operation ?? top?.name ?? "";
      const capped = overCap
        ? ` The trace has more than ${spans.length} spans, the most one call reads: the path is walked over the first ${spans.length} in start order.`
        : "";
      const more = offset + kept < rows.length ? ` (${kept} shown from ${offset}; follow the continuation)` : "";
      return {
        structured: answer,
        summary: `${
          top
            ? `Critical path of ${traceId}: ${rows.length} stretches over ${pathMs} ms${more}; most self time in ${quoted(topName)} (${top.span_id}, ${top.self_ms} ms).`
            : `Trace ${traceId} has no spans to walk.`
        }${capped}`,
      };
    },
  };
}

export const getCriticalPath = criticalPathTool(TRACE_SPAN_CAP);

/** Self time on the path summed per span, most first. */
function heaviestSpans(rows: readonly PathRow[]): HeavySpan[] {
  const bySpan = new Map<string, HeavySpan>();
  for (const row of rows) {
    const held = bySpan.get(row.span_id);
    if (held) held.self_ms = roundMs(held.self_ms + row.self_ms);
    else bySpan.set(row.span_id, { span_id: row.span_id, name: row.name, self_ms: row.self_ms });
  }
  return [...bySpan.values()].sort((a, b) => b.self_ms - a.self_ms).slice(0, HEAVIEST);
}

function nextCalls(traceId: string, heaviest: readonly HeavySpan[], overCap: boolean): NextCall[] {
  const next: NextCall[] = [];
  if (overCap) next.push(traceSpansSearchCall(traceId, "the trace is over the span cap: every span, paged"));
  if (heaviest.length)
    next.push(
      spanDetailsCall(
        traceId,
        heaviest.slice(0, 3).map((span) => span.span_id),
        "the spans holding the path longest: their attributes and events",
      ),
    );
  next.push(traceOutlineCall(traceId, "the whole trace's shape"));
  next.push(traceErrorsCall(traceId, "whether any span on it failed"));
  return next;
}
