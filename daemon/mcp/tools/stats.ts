/** `trace_stats` and `log_stats`: aggregates per group, the largest first. */
import type { StatsAnswerRow } from "../../../shared/query-types.js";
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall, ToolContext } from "../mcp-tool.js";
import {
  ATTRIBUTES_PROPERTY,
  LOOKBACK_PROPERTY,
  SERVICE_PROPERTY,
  SPAN_ID_PROPERTY,
  TRACE_ID_PROPERTY,
} from "./common-inputs.js";
import { largerBudgetCall, usableCalls } from "./next-calls.js";
import { attributePairs, withoutUndefined } from "./query-args.js";
import { ATTRIBUTES_CONTAIN_PROPERTY, STATUS_PROPERTY } from "./query-inputs.js";
import { label, quoted } from "./telemetry-text.js";

export interface StatsRow {
  group: string | null;
  value: number;
  count: number;
}

export interface StatsAnswer extends AnswerTail {
  group_by: string;
  agg: string;
  unit: string;
  lookback: string | null;
  rows: StatsRow[];
}

export interface TraceStatsArgs {
  group_by: string;
  agg: "count" | "avg_duration" | "p95_duration" | "error_rate";
  service?: string;
  status?: "ok" | "error";
  operation?: string;
  min_duration_ms?: number;
  attributes?: Record<string, string>;
  lookback?: string;
  max_bytes?: number;
}

export interface LogStatsArgs {
  group_by: string;
  agg?: "count";
  service?: string;
  severity?: string;
  trace_id?: string;
  span_id?: string;
  body?: string;
  attributes?: Record<string, string>;
  attributes_contain?: Record<string, string>;
  lookback?: string;
  max_bytes?: number;
}

/**
 * The filter arguments that narrow a search to one group of a stats answer: `{service: "api"}`
 * for group_by service, `{attributes: {KEY: value}}` for attr.KEY. Null for an item without a
 * value (no filter matches "absent"), and for groupings no search filter expresses (scope).
 */
export function groupFilter(
  groupBy: string,
  group: string | null,
  searchable: readonly string[],
): Record<string, unknown> | null {
  if (group === null) return null;
  if (groupBy.startsWith("attr.")) return { attributes: { [groupBy.slice("attr.".length)]: group } };
  return searchable.includes(groupBy) ? { [groupBy]: group } : null;
}

/** The filter arguments of a call, with one group's filter merged in (its attributes added). */
function narrowed(filters: Record<string, unknown>, group: Record<string, unknown>): Record<string, unknown> {
  const attributes = { ...(filters.attributes as object | undefined), ...(group.attributes as object | undefined) };
  return withoutUndefined({
    ...filters,
    ...group,
    attributes: Object.keys(attributes).length ? attributes : undefined,
  });
}

const STATS_OUTPUT = toolOutput(
  {
    group_by: { type: "string" },
    agg: { type: "string" },
    unit: { type: "string", description: "The unit of value: traces, ms, fraction (0 to 1) or logs" },
    lookback: { type: ["string", "null"], description: "The window aggregated" },
    rows: {
      type: "array",
      description: "One row per group, the largest value first; group null for items without a value",
      items: {
        type: "object",
        properties: {
          group: { type: ["string", "null"] },
          value: { type: "number" },
          count: { type: "integer", description: "Items (traces or logs) in the group" },
        },
        required: ["group", "value", "count"],
      },
    },
  },
  ["group_by", "agg", "unit", "lookback", "rows"],
);

/** The rows of a stats page within the budget, with `next` from the first (largest) row. */
function statsAnswer(
  page: { data: StatsAnswerRow[]; meta: { lookback: string | null; truncated: boolean } },
  request: { groupBy: string; agg: string },
  maxBytes: number,
  nextOf: (top: StatsRow | undefined) => NextCall[],
  again: NextCall,
): { structured: StatsAnswer; summary: string } {
  const rows: StatsRow[] = page.data.map(({ group, value, count }) => ({
    group: group === null ? null : cutString(group),
    value,
    count,
  }));
  const unit = page.data[0]?.unit ?? "";
  // Whole, for next's arguments (usableCalls leaves out one too long to make) and the summary.
  const top = page.data[0];
  const next = usableCalls(nextOf(top));
  const { answer, kept } = fitItems(rows, maxBytes, (shown, cut) => ({
    group_by: cutString(request.groupBy),
    agg: request.agg,
    unit,
    lookback: page.meta.lookback,
    rows: [...shown],
    truncated: cut || page.meta.truncated,
    // Stats are not paged: what max_bytes cut comes with a larger budget.
    ...withoutUndefined({
      continuation: cut ? largerBudgetCall(again.tool, again.arguments, maxBytes, again.why) : undefined,
    }),
    next,
  }));
  // An attribute key is the sender's text; the other groupings are obs's own words.
  const groupBy = request.groupBy.startsWith("attr.") ? quoted(request.groupBy) : request.groupBy;
  const summary = top
    ? `${rows.length} groups by ${groupBy} in the last ${page.meta.lookback}; largest ${request.agg}: ${top.group === null ? "(none)" : quoted(top.group)} with ${top.value}${unit ? ` ${unit}` : ""} over ${top.count}${kept < rows.length ? `; ${kept} shown within max_bytes` : ""}.`
    : `Nothing to aggregate in the last ${page.meta.lookback}.`;
  return { structured: answer, summary };
}

const GROUP_BY_DESCRIPTION = (values: string) =>
  `What to group by: ${values}, or attr.KEY for an attribute (e.g. attr.http.route)`;

export const traceStats: McpTool<TraceStatsArgs, StatsAnswer> = {
  name: "trace_stats",
  title: "Trace statistics",
  description:
    "Aggregates over traces per group: count, avg_duration or p95_duration (ms, nearest rank) or error_rate (0 to 1), grouped by root service, root operation, status or a root span attribute (attr.KEY). Use it to see which endpoint is slowest or fails most before opening traces; rows come largest first, and next opens the traces of the worst group with search_traces. Default window 15m, at most 24h.",
  inputSchema: toolInput(
    {
      group_by: {
        type: "string",
        description: GROUP_BY_DESCRIPTION("service (root service), operation (root operation), status"),
      },
      agg: { type: "string", enum: ["count", "avg_duration", "p95_duration", "error_rate"] },
      service: { ...SERVICE_PROPERTY, description: "Only traces with a span of this service" },
      status: STATUS_PROPERTY,
      operation: { type: "string", description: "Only traces whose root span has this exact name" },
      min_duration_ms: { type: "number", description: "Only traces lasting at least this many ms" },
      attributes: ATTRIBUTES_PROPERTY,
      lookback: LOOKBACK_PROPERTY,
    },
    ["group_by", "agg"],
  ),
  outputSchema: STATS_OUTPUT,
  async run(args: TraceStatsArgs, ctx: ToolContext) {
    const page = await ctx.api.traceStats(
      withoutUndefined({
        groupBy: args.group_by,
        agg: args.agg,
        service: args.service,
        status: args.status,
        operation: args.operation,
        durationMin: args.min_duration_ms,
        attr: attributePairs(args.attributes),
        lookback: args.lookback,
      }),
    );
    const lookback = page.meta.lookback ?? undefined;
    const filters = withoutUndefined({
      service: args.service,
      status: args.status,
      operation: args.operation,
      min_duration_ms: args.min_duration_ms,
      attributes: args.attributes,
      lookback,
    });
    return statsAnswer(
      page,
      { groupBy: args.group_by, agg: args.agg },
      ctx.maxBytes,
      (top) => {
        const group = top && groupFilter(args.group_by, top.group, ["service", "operation", "status"]);
        if (!top || !group) return [];
        const search = narrowed(filters, args.agg === "error_rate" ? { ...group, status: "error" } : group);
        const calls: NextCall[] = [
          {
            tool: "search_traces",
            arguments: search,
            why: `the traces of the worst group (${label(String(top.group))})`,
          },
        ];
        if (args.group_by !== "operation") {
          calls.push({
            tool: "trace_stats",
            arguments: { ...narrowed(filters, group), group_by: "operation", agg: args.agg },
            why: `the worst group (${label(String(top.group))}) by root operation`,
          });
        }
        return calls;
      },
      { tool: "trace_stats", arguments: { ...args }, why: "the rows cut to fit max_bytes" },
    );
  },
};

export const logStats: McpTool<LogStatsArgs, StatsAnswer> = {
  name: "log_stats",
  title: "Log statistics",
  description:
    "Log counts per group: by service, severity (the text, or the number's name), scope (instrumentation scope) or a log attribute (attr.KEY), with the same filters as search_logs. Use it to see which service or severity is noisy before reading logs; rows come largest first, and next reads the logs of the largest group with search_logs. Default window 15m, at most 24h.",
  inputSchema: toolInput(
    {
      group_by: { type: "string", description: GROUP_BY_DESCRIPTION("service, severity, scope") },
      agg: { type: "string", enum: ["count"], description: "Only count (the default)" },
      service: SERVICE_PROPERTY,
      severity: { type: "string", description: "Case-insensitive substring of the severity (warn, error)" },
      trace_id: { ...TRACE_ID_PROPERTY, description: "Only logs correlated to this trace" },
      span_id: { ...SPAN_ID_PROPERTY, description: "Only logs correlated to this span" },
      body: { type: "string", description: "Substring of the body (a text body's text, another body's JSON)" },
      attributes: ATTRIBUTES_PROPERTY,
      attributes_contain: ATTRIBUTES_CONTAIN_PROPERTY,
      lookback: LOOKBACK_PROPERTY,
    },
    ["group_by"],
  ),
  outputSchema: STATS_OUTPUT,
  async run(args: LogStatsArgs, ctx: ToolContext) {
    const page = await ctx.api.logStats(
      withoutUndefined({
        groupBy: args.group_by,
        agg: args.agg,
        service: args.service,
        severity: args.severity,
        traceId: args.trace_id,
        spanId: args.span_id,
        contains: args.body,
        attr: attributePairs(args.attributes),
        attrContains: attributePairs(args.attributes_contain),
        lookback: args.lookback,
      }),
    );
    const lookback = page.meta.lookback ?? undefined;
    const filters = withoutUndefined({
      service: args.service,
      severity: args.severity,
      trace_id: args.trace_id,
      span_id: args.span_id,
      body: args.body,
      attributes: args.attributes,
      attributes_contain: args.attributes_contain,
      lookback,
    });
    return statsAnswer(
      page,
      { groupBy: args.group_by, agg: args.agg ?? "count" },
      ctx.maxBytes,
      (top) => {
        const group = top && groupFilter(args.group_by, top.group, ["service", "severity"]);
        if (!top || !group) return [];
        const calls: NextCall[] = [
          {
            tool: "search_logs",
            arguments: narrowed(filters, group),
            why: `the logs of the largest group (${label(String(top.group))})`,
          },
        ];
        if (args.group_by === "service") {
          calls.push({
            tool: "log_stats",
            arguments: { ...narrowed(filters, group), group_by: "severity" },
            why: `the severities of ${label(String(top.group))}`,
          });
        }
        return calls;
      },
      { tool: "log_stats", arguments: { ...args }, why: "the rows cut to fit max_bytes" },
    );
  },
};
