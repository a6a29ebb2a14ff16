import { formatDuration, MAX_LOOKBACK_MS } from "../../../shared/duration.js";
import { capText } from "../../query/value-cap.js";
import {
  type AuditRule,
  type Confidence,
  type Finding,
  MAX_POINTS_COUNTED,
  type ServiceActivity,
} from "../audit-model.js";
import { count } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/** What a service sent in the baseline, for the summary: spans and logs always, metric points when any. */
function baselineText(a: ServiceActivity, points: number): string {
  if (points === 0) return `${count(a.baselineSpans, "span")} and ${count(a.baselineLogs, "log")}`;
  const atLeast = points >= MAX_POINTS_COUNTED ? "at least " : "";
  return `${count(a.baselineSpans, "span")}, ${count(a.baselineLogs, "log")} and ${atLeast}${count(points, "metric point")}`;
}

/**
 * no_telemetry: services that emitted spans, logs or metric points in the baseline and none of
 * them in the current window. A service that sends only metrics is not silent while they
 * arrive. Confidence grows with how steadily they emitted before (spans, logs and points alike).
 */
export const noTelemetryRule: AuditRule = (facts, { window, currentText, baselineText: baselineWindow }) => {
  const bothMs = Number((window.untilNs - window.baselineFromNs) / 1_000_000n);
  const since = formatDuration(Math.min(bothMs, MAX_LOOKBACK_MS));
  return facts.activity
    .filter(
      (a) =>
        a.currentSpans + a.currentLogs + a.currentSeries === 0 &&
        a.baselineSpans + a.baselineLogs + a.baselineSeries > 0,
    )
    .map((a): Finding => {
      const points = a.baselinePoints ?? 0;
      const before = a.baselineSpans + a.baselineLogs + points;
      const confidence: Confidence = before >= 20 ? "high" : before >= 5 ? "medium" : "low";
      const service = capText(a.service);
      return {
        code: "no_telemetry",
        severity: "warning",
        confidence,
        service,
        operation: null,
        summary: `${service} emitted ${baselineText(a, points)} in the ${baselineWindow} baseline and nothing in the last ${currentText}.`,
        evidence: {
          traceIds: [],
          spanIds: [],
          logIds: [],
          notes:
            a.baselineLastNs === null
              ? []
              : [`last telemetry at ${new Date(Number(a.baselineLastNs / 1_000_000n)).toISOString()}`],
        },
        current: { spans: 0, logs: 0, points: 0 },
        baseline: { spans: a.baselineSpans, logs: a.baselineLogs, points },
        followUp: followUps(
          obsCommand("traces", ["--service", a.service], ["--since", since]),
          obsCommand("logs", ["--service", a.service], ["--since", since]),
          points > 0 ? obsCommand("metrics", ["--service", a.service], ["--since", since]) : null,
        ),
      };
    });
};
