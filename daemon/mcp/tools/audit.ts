/** `run_audit`: the collector's deterministic audit, its findings with evidence and follow-up calls. */
import { parseDuration } from "../../../shared/duration.js";
import type { AuditReportRecord } from "../../../shared/query-types.js";
import { cutLongStrings, cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import { type AnswerTail, type McpTool, type NextCall, ToolInputError } from "../mcp-tool.js";
import { followUpCall } from "./audit-follow-up.js";
import { SERVICE_PROPERTY } from "./common-inputs.js";
import { largerBudgetCall, usableCalls } from "./next-calls.js";
import { withoutUndefined } from "./query-args.js";
import { snakeKeys } from "./snake-case.js";
import { label } from "./telemetry-text.js";

export interface RunAuditArgs {
  service?: string;
  lookback?: string;
  baseline?: string;
  min_duration_ms?: number;
  until?: string;
  max_bytes?: number;
}

type AuditFinding = AuditReportRecord["findings"][number];

/** A follow-up: the audit's own command, and the tool call that asks the same (null when none does). */
export interface FollowUp {
  command: string;
  call: NextCall | null;
}

/** A finding as the answer carries it: the audit's, with snake_case field names. */
export interface FindingRow {
  code: string;
  severity: string;
  confidence: string;
  service: string | null;
  operation: string | null;
  summary: string;
  evidence: { trace_ids: string[]; span_ids: string[]; log_ids: string[]; notes: string[] };
  current: Record<string, number> | null;
  baseline: Record<string, number> | null;
  follow_up: FollowUp[];
}

/** The audit's windows: their bounds (ISO 8601) and lengths (durations). */
export interface AuditWindowRow {
  current_start: string;
  current_end: string;
  baseline_start: string;
  baseline_end: string;
  current: string;
  baseline: string;
}

export interface RunAuditAnswer extends AnswerTail {
  window: AuditWindowRow;
  parameters: { service: string | null; duration_min: number | null };
  counts: AuditReportRecord["counts"];
  findings: FindingRow[];
  /** The audit's own notes on what it left out (too many traces, ...). */
  audit_truncated: string[];
}

/**
 * A finding's long strings cut (evidence notes can quote messages), its follow-ups translated:
 * a command naming a value too long to show whole is shown cut, without a call.
 */
export function findingRow(finding: AuditFinding): FindingRow {
  const { followUp, evidence, current, baseline, ...rest } = finding;
  const why = `follow-up of ${finding.code}${finding.operation ? ` on ${label(finding.operation)}` : ""}`;
  return {
    ...cutLongStrings(rest, 300),
    evidence: {
      trace_ids: evidence.traceIds,
      span_ids: evidence.spanIds,
      log_ids: evidence.logIds,
      notes: cutLongStrings(evidence.notes, 300),
    },
    current: current && snakeKeys(current),
    baseline: baseline && snakeKeys(baseline),
    follow_up: followUp.map((command) => {
      const call = followUpCall(command, why);
      return { command: cutString(command), call: call && (usableCalls([call])[0] ?? null) };
    }),
  };
}

/** Milliseconds of a window argument (duration text), in the minutes the audit route takes. */
function minutesOf(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseDuration(text) / 60_000;
  } catch (error) {
    throw new ToolInputError(`${name}: ${(error as Error).message}`);
  }
}

const NEXT_CALL_OR_NULL = {
  type: ["object", "null"],
  properties: { tool: { type: "string" }, arguments: { type: "object" }, why: { type: "string" } },
  description: "The tool call that asks the same as command; null when no tool does",
} as const;

const FINDING_SCHEMA = {
  type: "object",
  properties: {
    code: {
      type: "string",
      description: "error_trace, new_error_signature, latency_regression, log_burst, incomplete_trace or no_telemetry",
    },
    severity: { type: "string", description: "error, warning or info" },
    confidence: { type: "string" },
    service: { type: ["string", "null"] },
    operation: { type: ["string", "null"] },
    summary: { type: "string" },
    evidence: {
      type: "object",
      properties: {
        trace_ids: { type: "array", items: { type: "string" } },
        span_ids: { type: "array", items: { type: "string" } },
        log_ids: { type: "array", items: { type: "string" } },
        notes: { type: "array", items: { type: "string" } },
      },
      required: ["trace_ids", "span_ids", "log_ids", "notes"],
    },
    current: { type: ["object", "null"], description: "The finding's figures in the current window" },
    baseline: { type: ["object", "null"], description: "The same figures in the baseline window" },
    follow_up: {
      type: "array",
      items: {
        type: "object",
        properties: { command: { type: "string", description: "The obs CLI command" }, call: NEXT_CALL_OR_NULL },
        required: ["command", "call"],
      },
    },
  },
  required: ["code", "severity", "service", "operation", "summary", "evidence", "follow_up"],
} as const;

function nextCalls(rows: readonly FindingRow[], args: RunAuditArgs, lookback: string): NextCall[] {
  const calls = rows.flatMap((row) => row.follow_up.flatMap((item) => (item.call ? [item.call] : [])));
  if (calls.length) return calls.slice(0, 3);
  return [
    {
      tool: "trace_stats",
      arguments: withoutUndefined({ group_by: "service", agg: "error_rate", service: args.service, lookback }),
      why: "error rates per service, beyond what the audit flags",
    },
    { tool: "list_services", arguments: { lookback }, why: "the services that sent telemetry" },
  ];
}

export const runAudit: McpTool<RunAuditArgs, RunAuditAnswer> = {
  name: "run_audit",
  title: "Audit the recent window",
  description:
    "A deterministic health check of the current window against the baseline window just before it: error traces by root span, error signatures the baseline never had, latency regressions, log bursts, incomplete traces and services gone silent. Each finding has a summary, evidence (trace, span and log ids), its figures now and in the baseline, and follow-ups: the obs CLI command and the equivalent tool call. Call it first when asked what is wrong; default windows 15m each, at most 24h.",
  inputSchema: toolInput({
    service: { ...SERVICE_PROPERTY, description: "Only this service (traces with a span of it, its spans and logs)" },
    lookback: { type: "string", description: "The current window, as a duration: 15m (default), 1h; at most 24h" },
    baseline: {
      type: "string",
      description: "The baseline window just before the current one, as a duration; default the same as lookback",
    },
    min_duration_ms: {
      type: "number",
      description:
        "Slow-trace threshold in ms: given, latency findings list traces at or above it; absent, each operation's p95 is compared with the baseline",
    },
    until: {
      type: "string",
      description:
        "End of the current window, ISO 8601 with a zone (default now); fixing it makes repeated audits identical",
    },
  }),
  outputSchema: toolOutput(
    {
      window: {
        type: "object",
        description:
          "current_start, current_end, baseline_start, baseline_end (ISO 8601), current, baseline (durations)",
      },
      parameters: { type: "object", description: "service, duration_min (ms): what the audit was asked" },
      counts: { type: "object", description: "Findings by severity: error, warning, info" },
      findings: { type: "array", items: FINDING_SCHEMA, description: "Errors first" },
      audit_truncated: { type: "array", items: { type: "string" }, description: "What the audit itself left out" },
    },
    ["window", "parameters", "counts", "findings", "audit_truncated"],
  ),
  async run(args, ctx) {
    const report = (
      await ctx.api.audit(
        withoutUndefined({
          service: args.service,
          lookbackMinutes: minutesOf("lookback", args.lookback),
          baselineMinutes: minutesOf("baseline", args.baseline),
          durationMin: args.min_duration_ms,
          until: args.until,
        }),
      )
    ).data;
    const rows = report.findings.map(findingRow);
    const window: AuditWindowRow = {
      current_start: report.window.currentStart,
      current_end: report.window.currentEnd,
      baseline_start: report.window.baselineStart,
      baseline_end: report.window.baselineEnd,
      current: report.window.current,
      baseline: report.window.baseline,
    };
    const parameters = { service: report.parameters.service, duration_min: report.parameters.durationMin };
    const next = nextCalls(rows, args, report.window.current);
    const { answer, kept } = fitItems(rows, ctx.maxBytes, (findings, cut) => ({
      window,
      parameters,
      counts: report.counts,
      findings: [...findings],
      audit_truncated: cutLongStrings(report.truncated),
      truncated: cut,
      // The same windows, fixed, so the larger answer is of the same audit.
      ...withoutUndefined({
        continuation: cut
          ? largerBudgetCall(
              "run_audit",
              { ...args, until: report.window.currentEnd },
              ctx.maxBytes,
              "the findings cut to fit max_bytes",
            )
          : undefined,
      }),
      next,
    }));
    const { error, warning, info } = report.counts;
    const summary = rows.length
      ? `${rows.length} findings (${error} error, ${warning} warning, ${info} info) in the last ${report.window.current} against the ${report.window.baseline} before${kept < rows.length ? `; ${kept} shown within max_bytes` : ""}.`
      : `No findings in the last ${report.window.current} against the ${report.window.baseline} before.`;
    return { structured: answer, summary };
  },
};
