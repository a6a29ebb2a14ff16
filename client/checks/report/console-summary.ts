/** The basic reporter's text: one line per test as it finishes, then the totals. Pure. */
import { join } from "node:path";
import { safeText } from "../../render/table.js";
import type { RunReport, TestResult } from "./run-result.js";

const LABEL = { passed: "PASS", failed: "FAIL", skipped: "SKIP" } as const;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `reportDir` is the report directory as the reader should open it (relative to the working
 * folder): the failure screenshot's path is shown under it.
 */
export function testLine(test: TestResult, reportDir = ""): string {
  const steps = test.steps.length === 1 ? "1 step" : `${test.steps.length} steps`;
  const tries = test.attempts.length;
  const retried = tries > 1 ? (test.flaky ? `, passed on attempt ${tries}` : `, failed ${tries} attempts`) : "";
  const label = test.flaky ? "FLAKY" : LABEL[test.status];
  const timing = test.status === "skipped" ? "" : ` (${seconds(test.durationMs)}, ${steps}${retried})`;
  const lines = [`  ${label}${label.length < 5 ? " " : ""} ${safeText(test.id)}${timing}`];
  if (test.failure) lines.push(`        ${safeText(test.failure.message)}`);
  if (test.flaky) {
    for (const attempt of test.attempts) {
      if (attempt.failure) lines.push(`        attempt ${attempt.attempt}: ${safeText(attempt.failure.message)}`);
    }
  }
  lines.push(...pageErrorLines(test));
  const shot = test.failureEvidence?.screenshot;
  if (shot) lines.push(`        screenshot: ${safeText(join(reportDir, shot))}`);
  return lines.join("\n");
}

/** Page errors shown under a test; the rest are counted (report.json and junit.xml have them all). */
export const SHOWN_PAGE_ERRORS = 5;

/** The test's page errors, a line each up to SHOWN_PAGE_ERRORS, then how many more. */
export function pageErrorLines(test: TestResult): string[] {
  const errors = test.pageErrors;
  const lines = errors.slice(0, SHOWN_PAGE_ERRORS).map((error) => {
    // A request's message names its URL already.
    const where = error.kind !== "request" && error.url ? ` (${error.url})` : "";
    return `        page error, ${error.kind}: ${safeText(error.message)}${safeText(where)}`;
  });
  const more = errors.length - lines.length + (test.pageErrorsOmitted ?? 0);
  if (more > 0) lines.push(`        ... and ${more} more page ${more === 1 ? "error" : "errors"}`);
  return lines;
}

export function summaryLines(report: RunReport, written: string[]): string {
  const { totals, usage } = report;
  const flaky = totals.flaky > 0 ? `, ${totals.flaky} flaky` : "";
  const lines = [
    `${totals.tests} tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${flaky} (${seconds(report.durationMs)}); model tokens ${usage.inputTokens} in, ${usage.outputTokens} out`,
  ];
  const { cache } = report;
  if (cache.mode !== "off") {
    lines.push(`action cache (${cache.mode}): ${cache.hits} replayed, ${cache.misses} asked the model`);
  }
  if (written.length > 0) lines.push(`reports: ${written.join(", ")}`);
  return lines.join("\n");
}
