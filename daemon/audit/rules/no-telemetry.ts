import { formatDuration, MAX_LOOKBACK_MS } from "../../../shared/duration.js";
import type { AuditRule, Confidence, Finding } from "../audit-model.js";
import { count } from "../figures.js";
import { obsCommand } from "../follow-up.js";

/**
 * no_telemetry: services that emitted spans or logs in the baseline and nothing in the
 * current window. Confidence grows with how steadily they emitted before.
 */
export const noTelemetryRule: AuditRule = (facts, { window, currentText, baselineText }) => {
  const bothMs = Number((window.untilNs - window.baselineFromNs) / 1_000_000n);
  const since = formatDuration(Math.min(bothMs, MAX_LOOKBACK_MS));
  return facts.activity
    .filter((a) => a.currentSpans + a.currentLogs === 0 && a.baselineSpans + a.baselineLogs > 0)
    .map((a): Finding => {
      const before = a.baselineSpans + a.baselineLogs;
      const confidence: Confidence = before >= 20 ? "high" : before >= 5 ? "medium" : "low";
      return {
        code: "no_telemetry",
        severity: "warning",
        confidence,
        service: a.service,
        operation: null,
        summary: `${a.service} emitted ${count(a.baselineSpans, "span")} and ${count(a.baselineLogs, "log")} in the ${baselineText} baseline and nothing in the last ${currentText}.`,
        evidence: {
          traceIds: [],
          spanIds: [],
          logIds: [],
          notes:
            a.baselineLastNs === null
              ? []
              : [`last telemetry at ${new Date(Number(a.baselineLastNs / 1_000_000n)).toISOString()}`],
        },
        current: { spans: 0, logs: 0 },
        baseline: { spans: a.baselineSpans, logs: a.baselineLogs },
        followUp: [
          obsCommand("traces", ["--service", a.service], ["--since", since]),
          obsCommand("logs", ["--service", a.service], ["--since", since]),
        ],
      };
    });
};
