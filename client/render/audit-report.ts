import type { AuditReportRecord } from "../../shared/query-types.js";
import { traceUrl } from "../../shared/ui-links.js";
import { safeText } from "./table.js";

/** The audit report as the API answers it (shared/query-types.ts). */
export type AuditReportView = AuditReportRecord;

/**
 * Human text of an audit: a header line, then each finding with its evidence and next steps:
 * the follow-up commands, then each evidence trace's waterfall in the web UI of the collector
 * at `baseUrl`.
 */
export function renderAuditReport(report: AuditReportView, baseUrl: string): string {
  const { counts, window } = report;
  const lines = [
    `audit of the last ${window.current} (${window.currentStart} to ${window.currentEnd}) against the ${window.baseline} before: ${counts.error} error, ${counts.warning} warning, ${counts.info} info`,
  ];
  if (report.findings.length === 0) lines.push("no findings");
  for (const finding of report.findings) {
    const subject = [finding.service, finding.operation].filter((part) => part !== null).join(": ");
    lines.push(
      "",
      `${finding.severity.toUpperCase().padEnd(8)}${finding.code.padEnd(21)}${finding.confidence.padEnd(8)}${safeText(subject)}`,
      `  ${safeText(finding.summary)}`,
    );
    const { evidence } = finding;
    for (const [label, ids] of [
      ["traces", evidence.traceIds],
      ["spans", evidence.spanIds],
      ["logs", evidence.logIds],
    ] as const) {
      if (ids.length) lines.push(`  ${label.padEnd(7)} ${ids.join(" ")}`);
    }
    for (const note of evidence.notes) lines.push(`  note    ${safeText(note)}`);
    finding.followUp.forEach((command, index) => {
      lines.push(`  ${index === 0 ? "next   " : "       "} ${safeText(command)}`);
    });
    evidence.traceIds.forEach((traceId, index) => {
      lines.push(`  ${index === 0 ? "web UI " : "       "} ${traceUrl(baseUrl, traceId)}`);
    });
  }
  for (const bound of report.truncated) lines.push(`warning: ${bound}`);
  return lines.join("\n");
}
