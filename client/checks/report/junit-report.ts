/**
 * JUnit XML in the shape Playwright and Surefire write: one <testsuite> per spec file, a
 * <failure> with the message, screenshots (each step's, and the failure's) as
 * [[ATTACHMENT|path]] lines in <system-out>, the page's errors as lines in <system-err>.
 * Retried tests follow Surefire's rerun format: a flaky test holds a <flakyFailure> per failed
 * attempt, a test that failed every attempt a <failure> and a <rerunFailure> per other
 * attempt. Pure.
 */
import type { RunReport, TestResult } from "./run-result.js";

/**
 * Characters XML 1.0 cannot carry at all, even escaped: control characters other than tab and
 * line breaks, U+FFFE and U+FFFF, and half of a surrogate pair (a page may log any of them).
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(NOT_XML, "");
}

function cdata(text: string): string {
  return `<![CDATA[${text.replace(NOT_XML, "").replace(/]]>/g, "]]]]><![CDATA[>")}]]>`;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

type Attempt = TestResult["attempts"][number];

/** An earlier attempt's failure, as Surefire writes a rerun: its message, kind and text. */
function rerun(element: "flakyFailure" | "rerunFailure", attempt: Attempt): string {
  const failure = attempt.failure ?? { kind: "error", message: "failed" };
  const text = `attempt ${attempt.attempt}: ${failure.message}`;
  return `      <${element} message="${escapeXml(failure.message)}" type="${failure.kind}"><stackTrace>${cdata(text)}</stackTrace></${element}>`;
}

/** The test's page errors, a line each ("[exception] TypeError: ... (http://...)"); "" when none. */
function pageErrorText(test: TestResult): string {
  // One line per error: a message's own line breaks would read as further errors.
  const oneLine = (text: string) => text.replace(/\r?\n/g, " ");
  const lines = test.pageErrors.map((error) => {
    const where = error.kind !== "request" && error.url ? ` (${error.url})` : "";
    return `[${error.kind}] ${oneLine(error.message)}${oneLine(where)}`;
  });
  const omitted = test.pageErrorsOmitted ?? 0;
  if (omitted > 0) lines.push(`... and ${omitted} more page errors, not recorded`);
  return lines.length > 0 ? `\n${lines.join("\n")}\n` : "";
}

function testcase(test: TestResult): string[] {
  const open = `    <testcase name="${escapeXml(test.name)}" classname="${escapeXml(test.file)}" time="${seconds(test.durationMs)}">`;
  const lines = [open];
  if (test.status === "skipped") lines.push("      <skipped/>");
  const earlier = test.attempts.slice(0, -1).filter((attempt) => attempt.status === "failed");
  if (test.failure) {
    const detail = [
      test.failure.message,
      ...test.steps.map((step) => `step ${step.index} ${step.tool} ${JSON.stringify(step.args)}: ${step.evidence}`),
    ].join("\n");
    lines.push(
      `      <failure message="${escapeXml(test.failure.message)}" type="${test.failure.kind}">${cdata(detail)}</failure>`,
    );
    // Surefire's rerun shape: the result's failure, then one <rerunFailure> per other run.
    for (const attempt of earlier) lines.push(rerun("rerunFailure", attempt));
  } else if (test.flaky) {
    for (const attempt of earlier) lines.push(rerun("flakyFailure", attempt));
  }
  const shots = [
    ...test.steps.flatMap((step) => (step.screenshot ? [step.screenshot] : [])),
    ...earlier.flatMap((attempt) => (attempt.evidence?.screenshot ? [attempt.evidence.screenshot] : [])),
    ...(test.failureEvidence?.screenshot ? [test.failureEvidence.screenshot] : []),
  ];
  const attachments = shots.map((path) => `[[ATTACHMENT|${path}]]`);
  if (attachments.length > 0) lines.push(`      <system-out>${cdata(`\n${attachments.join("\n")}\n`)}</system-out>`);
  const pageErrors = pageErrorText(test);
  if (pageErrors) lines.push(`      <system-err>${cdata(pageErrors)}</system-err>`);
  lines.push("    </testcase>");
  return lines;
}

export function junitXml(report: RunReport): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="obs" tests="${report.totals.tests}" failures="${report.totals.failed}" skipped="${report.totals.skipped}" errors="0" time="${seconds(report.durationMs)}">`,
  ];
  for (const file of report.files) {
    const failures = file.tests.filter((test) => test.status === "failed").length;
    const skipped = file.tests.filter((test) => test.status === "skipped").length;
    const time = file.tests.reduce((sum, test) => sum + test.durationMs, 0);
    lines.push(
      `  <testsuite name="${escapeXml(file.file)}" timestamp="${file.tests[0]?.startedAt ?? report.startedAt}" hostname="${escapeXml(report.engine)}" tests="${file.tests.length}" failures="${failures}" skipped="${skipped}" errors="0" time="${seconds(time)}">`,
    );
    for (const test of file.tests) lines.push(...testcase(test));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
