/**
 * The audit's inputs and outputs. Facts are bounded aggregates read from the store; rules are
 * pure functions from facts to findings, so the same store and parameters always give the
 * same findings.
 */

import type { DurationBuckets } from "../../shared/duration-histogram.js";

export const FINDING_CODES = [
  "error_trace",
  "new_error_signature",
  "latency_regression",
  "log_burst",
  "incomplete_trace",
  "no_telemetry",
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export const SEVERITIES = ["error", "warning", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Confidence = "high" | "medium" | "low";

/** The two windows: current is (currentFromNs, untilNs], baseline (baselineFromNs, currentFromNs]. */
export interface AuditWindow {
  untilNs: bigint;
  currentFromNs: bigint;
  baselineFromNs: bigint;
  service?: string;
  /** Explicit slow-trace threshold; without it, latency is judged against the baseline. */
  durationMinMs?: number;
  /** Traces whose last span ended within this long of `untilNs` may still be arriving. */
  graceNs: bigint;
}

export interface TraceRef {
  traceId: string;
  spanId: string | null;
}

export interface ErrorTraceGroup {
  rootService: string | null;
  rootOperation: string | null;
  errorTraces: number;
  traces: number;
  baselineErrorTraces: number;
  /** Newest first: each trace with its first error span. */
  examples: TraceRef[];
}

export interface ErrorSpanGroup {
  service: string;
  operation: string;
  message: string | null;
  exceptionType: string | null;
  count: number;
  /** The newest span of the group (ties by trace id, then span id), and its start. */
  example: TraceRef;
  newestNs: bigint;
}

export interface OperationLatency {
  service: string;
  operation: string;
  /** Spans in the window. */
  spans: number;
  /** Their durations, bucketed (shared/duration-histogram.ts): quantiles within 1%. */
  buckets: DurationBuckets;
  /** The slowest spans, slowest first. */
  slowest: (TraceRef & { durationMs: number })[];
}

export interface SlowTraceGroup {
  rootService: string | null;
  rootOperation: string | null;
  count: number;
  maxMs: number;
  baselineCount: number;
  /** Slowest first, with the root span. */
  examples: (TraceRef & { durationMs: number })[];
}

export interface LogSeverityCounts {
  service: string;
  /** Warning-level records (severity 13-16) and error-level ones (17 and above). */
  currentWarnings: number;
  currentErrors: number;
  baselineWarnings: number;
  baselineErrors: number;
  /** Traces the current window's warning and error logs are correlated to, most logs first. */
  traces: { traceId: string; logs: number }[];
  /** The newest warning or error logs of the current window. */
  examples: { logId: string; traceId: string | null; spanId: string | null }[];
}

export interface OrphanSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  service: string;
  startNs: bigint;
  traceEndNs: bigint;
}

/** Metric points counted per service and window, at most; past it the count is a lower bound. */
export const MAX_POINTS_COUNTED = 1_000_000;

export interface ServiceActivity {
  service: string;
  currentSpans: number;
  currentLogs: number;
  baselineSpans: number;
  baselineLogs: number;
  /** Metric series of the service with a point in the current window, and in the baseline. */
  currentSeries: number;
  baselineSeries: number;
  /**
   * Metric points in the baseline. Counted only for a service with no telemetry in the current
   * window (the only case a rule reports them; counting costs a read per point), else null; at
   * most MAX_POINTS_COUNTED, and `truncated` says when reached.
   */
  baselinePoints: number | null;
  /** The newest span, log or metric point time in the baseline window, if any. */
  baselineLastNs: bigint | null;
}

export interface AuditFacts {
  errorTraceGroups: ErrorTraceGroup[];
  errorSpans: { current: ErrorSpanGroup[]; baseline: ErrorSpanGroup[] };
  latency: { current: OperationLatency[]; baseline: OperationLatency[] };
  slowTraceGroups: SlowTraceGroup[];
  logCounts: LogSeverityCounts[];
  orphanSpans: OrphanSpan[];
  activity: ServiceActivity[];
  /** Facts cut at their bound; the report says so. */
  truncated: string[];
}

/** Facts with nothing in them: an unknown service, or a store with no telemetry yet. */
export function emptyFacts(): AuditFacts {
  return {
    errorTraceGroups: [],
    errorSpans: { current: [], baseline: [] },
    latency: { current: [], baseline: [] },
    slowTraceGroups: [],
    logCounts: [],
    orphanSpans: [],
    activity: [],
    truncated: [],
  };
}

/** Current or baseline figures of a finding: a few named numbers. */
export type Figures = Record<string, number>;

export interface Finding {
  code: FindingCode;
  severity: Severity;
  confidence: Confidence;
  service: string | null;
  operation: string | null;
  summary: string;
  evidence: { traceIds: string[]; spanIds: string[]; logIds: string[]; notes: string[] };
  current: Figures | null;
  baseline: Figures | null;
  followUp: string[];
}

/** What every rule sees besides the facts. */
export interface RuleContext {
  window: AuditWindow;
  /** Window lengths as duration text, e.g. 15m (for summaries and follow-up commands). */
  currentText: string;
  baselineText: string;
}

export type AuditRule = (facts: AuditFacts, context: RuleContext) => Finding[];
