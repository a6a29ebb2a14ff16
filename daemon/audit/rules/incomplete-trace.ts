import { capText } from "../../query/value-cap.js";
import type { AuditRule, Finding, OrphanSpan } from "../audit-model.js";
import { count, newestFirst } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/** Older than this, a missing parent is unlikely to be still in flight. */
const SETTLED_NS = 5n * 60n * 1_000_000_000n;

/**
 * incomplete_trace: spans whose parent never arrived (which includes every trace without a
 * root), once the trace has been quiet for the grace period. One finding per service of the
 * orphaned spans. Info severity: sampling, a crashed exporter or a span still buffered can
 * each explain it.
 */
export const incompleteTraceRule: AuditRule = (facts, { window, currentText }) => {
  const settledBefore = window.untilNs - window.graceNs;
  const byService = new Map<string, OrphanSpan[]>();
  for (const orphan of facts.orphanSpans) {
    if (orphan.traceEndNs > settledBefore) continue;
    byService.set(orphan.service, [...(byService.get(orphan.service) ?? []), orphan]);
  }
  const findings: Finding[] = [];
  for (const [service, unordered] of byService) {
    // Each trace is listed at its newest orphan.
    const orphans = [...unordered].sort(newestFirst);
    const traces = [...new Set(orphans.map((orphan) => orphan.traceId))];
    const settled = orphans.every((orphan) => orphan.traceEndNs <= window.untilNs - SETTLED_NS);
    const examples = orphans.slice(0, 5);
    findings.push({
      code: "incomplete_trace",
      severity: "info",
      confidence: settled ? "high" : "medium",
      service: capText(service),
      operation: null,
      summary: `${count(orphans.length, "span")} of ${capText(service)} in ${count(traces.length, "trace")} of the last ${currentText} name a parent span that never arrived (checked ${Number(window.graceNs / 1_000_000_000n)} s after each trace's last span).`,
      evidence: {
        traceIds: traces.slice(0, 5),
        spanIds: examples.map((orphan) => orphan.spanId),
        logIds: [],
        notes: examples.map((orphan) => `span ${orphan.spanId} names missing parent ${orphan.parentSpanId}`),
      },
      current: { traces: traces.length, spans: orphans.length },
      baseline: null,
      followUp: followUps(...traces.slice(0, 2).map((traceId) => obsCommand("trace", traceId))),
    });
  }
  return findings;
};
