/** `search_traces`: which traces happened, newest first, as one short record each. */
import type { TraceSummary } from "../../../shared/api-records.js";
import type { TracesRequest } from "../../../shared/query-messages.js";
import { traceUrl } from "../../../shared/ui-links.js";
import { cutString, pageWithinBudget, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { ATTRIBUTES_PROPERTY, CURSOR_PROPERTY, LOOKBACK_PROPERTY, SERVICE_PROPERTY } from "./common-inputs.js";
import { criticalPathCall, traceErrorsCall, traceOutlineCall } from "./next-calls.js";
import { label } from "./telemetry-text.js";
import { UI_URL_PROPERTY } from "./ui-links.js";

interface SearchTracesArgs {
  service?: string;
  status?: "ok" | "error";
  operation?: string;
  min_duration_ms?: number;
  attributes?: Record<string, string>;
  lookback?: string;
  limit?: number;
  cursor?: string;
  max_bytes?: number;
}

interface TraceRow {
  trace_id: string;
  service: string | null;
  operation: string | null;
  start: string;
  duration_ms: number;
  spans: number;
  errors: number;
  status: "ok" | "error";
  services: string[];
  ui_url: string;
}

interface SearchTracesAnswer extends AnswerTail {
  lookback: string;
  traces: TraceRow[];
}

/** The API's page size for traces: default 20, at most 100. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

const TRACE_ROW_SCHEMA = {
  type: "object",
  properties: {
    trace_id: { type: "string" },
    service: { type: ["string", "null"], description: "The root span's service" },
    operation: { type: ["string", "null"], description: "The root span's name" },
    start: { type: "string", description: "ISO 8601" },
    duration_ms: { type: "number" },
    spans: { type: "integer", description: "Span count" },
    errors: { type: "integer", description: "Spans with error status" },
    status: { type: "string", enum: ["ok", "error"], description: "error when any span failed" },
    services: { type: "array", items: { type: "string" }, description: "Every service with a span in the trace" },
    ui_url: UI_URL_PROPERTY,
  },
  required: [
    "trace_id",
    "service",
    "operation",
    "start",
    "duration_ms",
    "spans",
    "errors",
    "status",
    "services",
    "ui_url",
  ],
} as const;

export const searchTraces: McpTool<SearchTracesArgs, SearchTracesAnswer> = {
  name: "search_traces",
  title: "Search traces",
  description:
    "Traces in the window, newest first, one short record each: trace id, root service and operation, start, duration in ms, span and error counts, status, services. Filter by service (any span's), status (error: some span failed), root operation, min_duration_ms and exact attributes. Pages of 20 by default (limit at most 100); follow the continuation for more. Then get_trace_outline for a trace's shape, or get_trace_errors for a failed one.",
  inputSchema: toolInput({
    service: SERVICE_PROPERTY,
    status: { type: "string", enum: ["ok", "error"], description: "error: traces with a failed span; ok: without" },
    operation: { type: "string", description: "The root span's name, exactly" },
    min_duration_ms: { type: "number", minimum: 0, description: "Only traces lasting at least this many ms" },
    attributes: ATTRIBUTES_PROPERTY,
    lookback: { ...LOOKBACK_PROPERTY, description: `${LOOKBACK_PROPERTY.description} Default 15m.` },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `Traces per page (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
    },
    cursor: CURSOR_PROPERTY,
  }),
  outputSchema: toolOutput(
    {
      lookback: { type: "string", description: "The window searched" },
      traces: { type: "array", items: TRACE_ROW_SCHEMA, description: "Newest first" },
    },
    ["lookback", "traces"],
  ),
  async run(args, ctx) {
    const filters = requestOf(args);
    let lookback = args.lookback ?? "";
    const { answer, kept, total } = await pageWithinBudget({
      fetch: async (limit, cursor) => {
        const page = await ctx.api.listTraces({ ...filters, limit, ...(cursor === undefined ? {} : { cursor }) });
        lookback = page.meta.lookback ?? lookback;
        return page;
      },
      limit: args.limit ?? DEFAULT_LIMIT,
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
      maxBytes: ctx.maxBytes,
      build: (traces, tail): SearchTracesAnswer => ({
        lookback,
        traces: traces.map((trace) => rowOf(trace, ctx.baseUrl)),
        ...tail,
        next: nextCalls(traces, lookback),
      }),
      continueWith: (cursor) => ({
        tool: "search_traces",
        arguments: { ...args, ...(cursor === undefined ? {} : { cursor }) },
        why: "the next page of traces",
      }),
    });
    const errors = answer.traces.filter((trace) => trace.status === "error").length;
    const cut = kept < total ? `; ${kept} of ${total} shown within max_bytes` : "";
    return {
      structured: answer,
      summary: answer.traces.length
        ? `${answer.traces.length} ${answer.traces.length === 1 ? "trace" : "traces"} in the last ${lookback}, ${errors} with errors${cut}${answer.truncated ? "; more on the continuation" : ""}.`
        : `No traces matched in the last ${lookback}${answer.truncated ? " within max_bytes" : ""}.`,
    };
  },
};

function requestOf(args: SearchTracesArgs): TracesRequest {
  return {
    ...(args.service === undefined ? {} : { service: args.service }),
    ...(args.status === undefined ? {} : { status: args.status }),
    ...(args.operation === undefined ? {} : { operation: args.operation }),
    ...(args.min_duration_ms === undefined ? {} : { durationMin: args.min_duration_ms }),
    ...(args.lookback === undefined ? {} : { lookback: args.lookback }),
    ...(args.attributes === undefined ? {} : { attr: Object.entries(args.attributes) }),
  };
}

function rowOf(trace: TraceSummary, baseUrl: string): TraceRow {
  return {
    trace_id: trace.traceId,
    service: trace.rootServiceName === null ? null : cutString(trace.rootServiceName),
    operation: trace.rootOperation === null ? null : cutString(trace.rootOperation),
    start: trace.startTime,
    duration_ms: trace.durationMs,
    spans: trace.spanCount,
    errors: trace.errorCount,
    status: trace.status,
    services: trace.services.map((service) => cutString(service)),
    ui_url: traceUrl(baseUrl, trace.traceId),
  };
}

/** The first failed trace's outline and errors, else the slowest trace's outline. */
function nextCalls(traces: readonly TraceSummary[], lookback: string): NextCall[] {
  const failed = traces.find((trace) => trace.status === "error");
  if (failed)
    return [
      traceErrorsCall(
        failed.traceId,
        `the newest failed trace (${label(failed.rootOperation ?? failed.traceId)}): its error spans and logs`,
      ),
      traceOutlineCall(failed.traceId, "the failed trace's shape"),
    ];
  let slowest: TraceSummary | undefined;
  for (const trace of traces) if (slowest === undefined || trace.durationMs > slowest.durationMs) slowest = trace;
  if (slowest)
    return [
      traceOutlineCall(slowest.traceId, `the slowest trace shown (${slowest.durationMs} ms): where its time went`),
      criticalPathCall(slowest.traceId, "what bounds its duration"),
    ];
  return [{ tool: "list_services", arguments: lookback ? { lookback } : {}, why: "which services sent telemetry" }];
}
