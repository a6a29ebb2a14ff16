import { capText } from "../../query/value-cap.js";
import type { AuditRule, Confidence, ErrorSpanGroup, Finding, TraceRef } from "../audit-model.js";
import { signatureKey, signatureText } from "../error-signature.js";
import { count, newestFirst } from "../figures.js";
import { followUps, obsCommand } from "../follow-up.js";

/** Baseline spans from a service for its absence of a signature to be telling. */
const WELL_OBSERVED_SPANS = 20;

interface Signature {
  service: string;
  operation: string;
  text: string;
  count: number;
  /** Each group's newest span, newest first (ties by trace id, then span id); at most 5. */
  examples: TraceRef[];
}

function signaturesOf(groups: ErrorSpanGroup[]): Map<string, Signature> {
  const signatures = new Map<string, Signature>();
  const examples = new Map<string, (TraceRef & { startNs: bigint })[]>();
  for (const group of groups) {
    const text = signatureText(group.message, group.exceptionType);
    const key = signatureKey(group.service, group.operation, text);
    const signature = signatures.get(key) ?? {
      service: group.service,
      operation: group.operation,
      text,
      count: 0,
      examples: [],
    };
    signature.count += group.count;
    signatures.set(key, signature);
    const list = examples.get(key) ?? [];
    list.push({ ...group.example, startNs: group.newestNs });
    examples.set(key, list);
  }
  for (const [key, signature] of signatures) {
    signature.examples = (examples.get(key) ?? [])
      .sort(newestFirst)
      .slice(0, 5)
      .map(({ traceId, spanId }) => ({ traceId, spanId }));
  }
  return signatures;
}

/**
 * new_error_signature: error signatures (service, span name, folded message or exception
 * type) seen in the current window and not in the baseline. Confidence follows how well the
 * baseline observed the service: with few or no baseline spans, "new" means little.
 */
export const newErrorSignatureRule: AuditRule = (facts, { currentText, baselineText }) => {
  const baseline = signaturesOf(facts.errorSpans.baseline);
  const baselineSpans = new Map(facts.activity.map((a) => [a.service, a.baselineSpans]));
  const findings: Finding[] = [];
  for (const [key, signature] of signaturesOf(facts.errorSpans.current)) {
    if (baseline.has(key)) continue;
    const observed = baselineSpans.get(signature.service) ?? 0;
    const confidence: Confidence = observed >= WELL_OBSERVED_SPANS ? "high" : observed > 0 ? "medium" : "low";
    const service = capText(signature.service);
    const operation = capText(signature.operation);
    findings.push({
      code: "new_error_signature",
      severity: "warning",
      confidence,
      service,
      operation,
      summary: `New error signature observed in ${service}: ${operation}: "${signature.text}" (${count(signature.count, "span")} in the last ${currentText}; none in the ${baselineText} baseline, which holds ${count(observed, "span")} of ${service}).`,
      evidence: {
        traceIds: signature.examples.map((example) => example.traceId),
        spanIds: signature.examples.flatMap((example) => (example.spanId ? [example.spanId] : [])),
        logIds: [],
        notes: [`signature: ${signature.text}`],
      },
      current: { spans: signature.count },
      baseline: { spans: 0, serviceSpans: observed },
      followUp: followUps(
        obsCommand(
          "spans",
          ["--service", signature.service],
          ["--operation", signature.operation],
          ["--status", "error"],
          ["--since", currentText],
        ),
        signature.examples[0] ? obsCommand("trace", signature.examples[0].traceId) : null,
      ),
    });
  }
  return findings;
};
