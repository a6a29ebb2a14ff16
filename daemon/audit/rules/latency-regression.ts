import { quantileMs } from "../../../shared/duration-histogram.js";
import { capOptionalText, capText } from "../../query/value-cap.js";
import type { AuditRule, Confidence, Finding, OperationLatency } from "../audit-model.js";
import { count, ms, rootLabel, rounded } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/** Spans needed in each window before a p95 is compared: a handful never declares a regression. */
export const MIN_SAMPLES = 20;
/** Current p95 at least this many times the baseline p95... */
export const MIN_RATIO = 1.5;
/** ...and at least this much slower, so sub-millisecond jitter is not a regression. */
export const MIN_DELTA_MS = 10;

function byOperation(list: OperationLatency[]): Map<string, OperationLatency> {
  return new Map(list.map((entry) => [JSON.stringify([entry.service, entry.operation]), entry]));
}

/** Baseline delta: per service and span name, current p95 against baseline p95. */
const baselineDelta: AuditRule = (facts, { currentText, baselineText }) => {
  const baseline = byOperation(facts.latency.baseline);
  const findings: Finding[] = [];
  for (const [key, current] of byOperation(facts.latency.current)) {
    const before = baseline.get(key);
    if (!before || current.spans < MIN_SAMPLES || before.spans < MIN_SAMPLES) continue;
    const p95 = quantileMs(current.buckets, 95);
    const baselineP95 = quantileMs(before.buckets, 95);
    if (p95 < baselineP95 * MIN_RATIO || p95 - baselineP95 < MIN_DELTA_MS) continue;
    const ratio = baselineP95 > 0 ? p95 / baselineP95 : Number.POSITIVE_INFINITY;
    const plenty = current.spans >= 5 * MIN_SAMPLES && before.spans >= 5 * MIN_SAMPLES;
    const confidence: Confidence = plenty && ratio >= 2 ? "high" : "medium";
    const service = capText(current.service);
    const operation = capText(current.operation);
    findings.push({
      code: "latency_regression",
      severity: "warning",
      confidence,
      service,
      operation,
      summary: `p95 duration of ${service}: ${operation} observed at ${ms(p95)} in the last ${currentText}, against ${ms(baselineP95)} in the ${baselineText} baseline (${Number.isFinite(ratio) ? `${rounded(ratio)}x` : "up from 0"}; ${count(current.spans, "span")} and ${before.spans}).`,
      evidence: {
        traceIds: [...new Set(current.slowest.map((span) => span.traceId))],
        spanIds: current.slowest.flatMap((span) => (span.spanId ? [span.spanId] : [])),
        logIds: [],
        notes: current.slowest.map((span) => `span ${span.spanId} lasted ${ms(span.durationMs)}`),
      },
      current: { p95Ms: rounded(p95, 3), spans: current.spans },
      baseline: { p95Ms: rounded(baselineP95, 3), spans: before.spans },
      followUp: followUps(
        obsCommand(
          "spans",
          ["--service", current.service],
          ["--operation", current.operation],
          ["--since", currentText],
        ),
        current.slowest[0] ? obsCommand("trace", current.slowest[0].traceId) : null,
      ),
    });
  }
  return findings;
};

/** Explicit threshold: traces lasting at least durationMin, grouped by root. */
const threshold: AuditRule = (facts, { currentText, window }) =>
  facts.slowTraceGroups.map((group): Finding => {
    const service = capOptionalText(group.rootService);
    const operation = capOptionalText(group.rootOperation);
    return {
      code: "latency_regression",
      severity: "warning",
      confidence: "high",
      service,
      operation,
      summary: `${count(group.count, "trace")} rooted at ${rootLabel(service, operation)} lasted at least ${ms(window.durationMinMs ?? 0)} in the last ${currentText} (slowest ${ms(group.maxMs)}; ${group.baselineCount} in the baseline).`,
      evidence: {
        traceIds: group.examples.map((example) => example.traceId),
        spanIds: group.examples.flatMap((example) => (example.spanId ? [example.spanId] : [])),
        logIds: [],
        notes: group.examples.map((example) => `trace ${example.traceId} lasted ${ms(example.durationMs)}`),
      },
      current: { slowTraces: group.count, maxMs: rounded(group.maxMs, 3), thresholdMs: window.durationMinMs ?? 0 },
      baseline: { slowTraces: group.baselineCount },
      followUp: followUps(
        obsCommand(
          "traces",
          ["--service", group.rootService],
          ["--operation", group.rootOperation],
          ["--duration-min", String(window.durationMinMs ?? 0)],
          ["--since", currentText],
        ),
        group.examples[0] ? obsCommand("trace", group.examples[0].traceId) : null,
      ),
    };
  });

/**
 * latency_regression: with an explicit durationMin, traces at or above it; otherwise spans
 * whose operation's p95 rose against the baseline.
 */
export const latencyRegressionRule: AuditRule = (facts, context) =>
  context.window.durationMinMs !== undefined ? threshold(facts, context) : baselineDelta(facts, context);
