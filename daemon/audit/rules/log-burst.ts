import { capText } from "../../query/value-cap.js";
import type { AuditRule, Confidence, Finding } from "../audit-model.js";
import { count, rounded } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/** Warning and error logs needed in the current window before a rate counts as a burst. */
export const MIN_BURST_LOGS = 10;
/** Current rate at least this many times the baseline rate. */
export const BURST_RATIO = 3;

/**
 * log_burst: the rate of warning and error logs of a service in the current window, well above
 * its rate in the baseline, with the traces those logs are correlated to. Error severity when
 * error-level records make up most of the burst.
 */
export const logBurstRule: AuditRule = (facts, { window, currentText, baselineText }) => {
  const currentMinutes = Number(window.untilNs - window.currentFromNs) / 60e9;
  const baselineMinutes = Number(window.currentFromNs - window.baselineFromNs) / 60e9;
  const active = new Map(facts.activity.map((a) => [a.service, a.baselineSpans + a.baselineLogs + a.baselineSeries]));
  const findings: Finding[] = [];
  for (const logs of facts.logCounts) {
    const current = logs.currentWarnings + logs.currentErrors;
    const baseline = logs.baselineWarnings + logs.baselineErrors;
    if (current < MIN_BURST_LOGS) continue;
    const rate = current / currentMinutes;
    const baselineRate = baseline / baselineMinutes;
    if (rate < baselineRate * BURST_RATIO) continue;
    const confidence: Confidence =
      baseline >= MIN_BURST_LOGS && rate >= baselineRate * 5
        ? "high"
        : (active.get(logs.service) ?? 0) > 0
          ? "medium"
          : "low";
    const traceIds = logs.traces.map((trace) => trace.traceId);
    const service = capText(logs.service);
    findings.push({
      code: "log_burst",
      severity: logs.currentErrors * 2 > current ? "error" : "warning",
      confidence,
      service,
      operation: null,
      summary: `${count(current, "warning/error log")} observed from ${service} in the last ${currentText} (${rounded(rate, 2)}/min), against ${baseline} in the ${baselineText} baseline (${rounded(baselineRate, 2)}/min); associated with ${count(traceIds.length, "trace")}${logs.traces.length >= 5 ? " or more" : ""}.`,
      evidence: {
        traceIds,
        spanIds: [...new Set(logs.examples.flatMap((log) => (log.spanId ? [log.spanId] : [])))],
        logIds: logs.examples.map((log) => log.logId),
        notes: logs.traces.map((trace) => `trace ${trace.traceId}: ${count(trace.logs, "log")}`),
      },
      current: { logs: current, errors: logs.currentErrors, perMinute: rounded(rate, 3) },
      baseline: { logs: baseline, errors: logs.baselineErrors, perMinute: rounded(baselineRate, 3) },
      followUp: followUps(
        obsCommand("log-stats", "severity", ["--service", logs.service], ["--since", currentText]),
        obsCommand("logs", ["--service", logs.service], ["--since", currentText]),
        traceIds[0] ? obsCommand("trace-logs", traceIds[0]) : null,
      ),
    });
  }
  return findings;
};
