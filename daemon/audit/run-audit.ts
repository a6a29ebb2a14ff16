import { formatDuration } from "../../shared/duration.js";
import type { AuditReportRecord } from "../../shared/query-types.js";
import { nsToIso } from "../../shared/time.js";
import {
  type AuditFacts,
  type AuditRule,
  type AuditWindow,
  type Confidence,
  FINDING_CODES,
  type Finding,
  type RuleContext,
  SEVERITIES,
} from "./audit-model.js";
import { compareText } from "./figures.js";
import { errorTraceRule } from "./rules/error-trace.js";
import { incompleteTraceRule } from "./rules/incomplete-trace.js";
import { latencyRegressionRule } from "./rules/latency-regression.js";
import { logBurstRule } from "./rules/log-burst.js";
import { newErrorSignatureRule } from "./rules/new-error-signature.js";
import { noTelemetryRule } from "./rules/no-telemetry.js";

const RULES: AuditRule[] = [
  errorTraceRule,
  newErrorSignatureRule,
  latencyRegressionRule,
  logBurstRule,
  incompleteTraceRule,
  noTelemetryRule,
];

/** The report the API answers (shared/query-types.ts), with the audit's own typed findings. */
export interface AuditReport extends AuditReportRecord {
  findings: Finding[];
}

/**
 * The documented order: severity (error, warning, info), then code in the order of
 * FINDING_CODES, then service, operation and summary by codepoint.
 */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
    FINDING_CODES.indexOf(a.code) - FINDING_CODES.indexOf(b.code) ||
    compareText(a.service, b.service) ||
    compareText(a.operation, b.operation) ||
    compareText(a.summary, b.summary)
  );
}

/** Runs every rule over the facts: a pure function of its inputs. */
export function runAudit(facts: AuditFacts, window: AuditWindow): AuditReport {
  const currentMs = Number((window.untilNs - window.currentFromNs) / 1_000_000n);
  const baselineMs = Number((window.currentFromNs - window.baselineFromNs) / 1_000_000n);
  const context: RuleContext = {
    window,
    currentText: formatDuration(currentMs),
    baselineText: formatDuration(baselineMs),
  };
  const { findings, cut } = boundedPerCode(RULES.flatMap((rule) => rule(facts, context)).sort(compareFindings));
  const counts = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return {
    window: {
      currentStart: nsToIso(window.currentFromNs),
      currentEnd: nsToIso(window.untilNs),
      baselineStart: nsToIso(window.baselineFromNs),
      baselineEnd: nsToIso(window.currentFromNs),
      current: context.currentText,
      baseline: context.baselineText,
    },
    parameters: { service: window.service ?? null, durationMin: window.durationMinMs ?? null },
    counts,
    findings,
    truncated: [...facts.truncated, ...cut],
  };
}

/** The most findings of one code a report holds (docs/audit.md: "at most 50 groups per code"). */
export const MAX_FINDINGS_PER_CODE = 50;

const CONFIDENCE_ORDER: Confidence[] = ["high", "medium", "low"];

/**
 * The sorted findings, at most MAX_FINDINGS_PER_CODE of each code, and a `truncated` line per
 * code cut. Those kept are the most severe, then the most confident, then the first in the
 * report's order (not the first by service name alone: a high-confidence no_telemetry of
 * `zeta` outranks a low one of `alpha`); they stay in the report's order. A rule that reads its
 * groups bounded already (error traces) never reaches it; one that judges every service
 * (no_telemetry, log_burst) or operation (latency_regression) can.
 */
function boundedPerCode(sorted: Finding[]): { findings: Finding[]; cut: string[] } {
  const byCode = new Map<string, number[]>();
  sorted.forEach((finding, at) => {
    const indexes = byCode.get(finding.code) ?? [];
    indexes.push(at);
    byCode.set(finding.code, indexes);
  });
  const dropped = new Set<number>();
  const cut: string[] = [];
  for (const [code, indexes] of byCode) {
    if (indexes.length <= MAX_FINDINGS_PER_CODE) continue;
    const rank = (at: number) => {
      const finding = sorted[at] as Finding;
      return SEVERITIES.indexOf(finding.severity) * 10 + CONFIDENCE_ORDER.indexOf(finding.confidence);
    };
    const ranked = [...indexes].sort((a, b) => rank(a) - rank(b) || a - b);
    for (const at of ranked.slice(MAX_FINDINGS_PER_CODE)) dropped.add(at);
    cut.push(`${code}: the ${MAX_FINDINGS_PER_CODE} most confident of ${indexes.length} findings are reported`);
  }
  return { findings: sorted.filter((_, at) => !dropped.has(at)), cut };
}
