import { capOptionalText } from "../../query/value-cap.js";
import type { AuditRule, Finding } from "../audit-model.js";
import { count, rootLabel } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/**
 * error_trace: traces with error spans in the current window, grouped by their root span
 * (service and operation). Always error severity; confidence is lower when the root never
 * arrived, since the grouping is then only by absence.
 */
export const errorTraceRule: AuditRule = (facts, { currentText }) =>
  facts.errorTraceGroups.map((group): Finding => {
    const first = group.examples[0]?.traceId;
    const service = capOptionalText(group.rootService);
    const operation = capOptionalText(group.rootOperation);
    return {
      code: "error_trace",
      severity: "error",
      confidence: group.rootService === null ? "medium" : "high",
      service,
      operation,
      summary: `Error spans observed in ${group.errorTraces} of ${count(group.traces, "trace")} rooted at ${rootLabel(service, operation)} in the last ${currentText} (${group.baselineErrorTraces} in the baseline).`,
      evidence: {
        traceIds: group.examples.map((example) => example.traceId),
        spanIds: group.examples.flatMap((example) => (example.spanId ? [example.spanId] : [])),
        logIds: [],
        notes: [],
      },
      current: { errorTraces: group.errorTraces, traces: group.traces },
      baseline: { errorTraces: group.baselineErrorTraces },
      followUp: followUps(
        obsCommand(
          "traces",
          ["--service", group.rootService],
          ["--operation", group.rootOperation],
          ["--status", "error"],
          ["--since", currentText],
        ),
        first ? obsCommand("trace", first) : null,
      ),
    };
  });
