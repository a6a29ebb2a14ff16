/** The basic reporter's text: one line per test as it finishes, then the totals. Pure. */
import { safeText } from "../../render/table.js";
import type { RunReport, TestResult } from "./run-result.js";

const LABEL = { passed: "PASS", failed: "FAIL", skipped: "SKIP" } as const;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function testLine(test: TestResult): string {
  const steps = test.steps.length === 1 ? "1 step" : `${test.steps.length} steps`;
  const head = `  ${LABEL[test.status]}  ${safeText(test.id)}${test.status === "skipped" ? "" : ` (${seconds(test.durationMs)}, ${steps})`}`;
  return test.failure ? `${head}\n        ${safeText(test.failure.message)}` : head;
}

export function summaryLines(report: RunReport, written: string[]): string {
  const { totals, usage } = report;
  const lines = [
    `${totals.tests} tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped (${seconds(report.durationMs)}); model tokens ${usage.inputTokens} in, ${usage.outputTokens} out`,
  ];
  const { cache } = report;
  if (cache.mode !== "off") {
    lines.push(`action cache (${cache.mode}): ${cache.hits} replayed, ${cache.misses} asked the model`);
  }
  if (written.length > 0) lines.push(`reports: ${written.join(", ")}`);
  return lines.join("\n");
}
