/**
 * The HTML reporter's page: the whole run as one self-contained file, `<report-dir>/report/index.html`,
 * with its stylesheet inline and its images (screenshots, failure evidence) linked relative to
 * it. It loads nothing from anywhere and runs no script: its Content-Security-Policy says so, so
 * even a mistake in escaping could not make page or model text run. Pure.
 */
import { count, duration, shownStatus } from "./html/format.js";
import { html, type Markup, raw } from "./html/markup.js";
import { REPORT_CSS } from "./html/report-css.js";
import { testSection } from "./html/test-section.js";
import type { RunReport, TestResult } from "./run-result.js";

/** Where the page goes, relative to the report directory. */
export const HTML_REPORT = "report/index.html";

/** Images from the report's own folder, the inline stylesheet, and nothing else (`obs show-report` sends it too). */
export const REPORT_CONTENT_SECURITY_POLICY =
  "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

function totals(report: RunReport): Markup {
  const { tests, passed, failed, flaky, skipped } = report.totals;
  return html`<div class="totals"><span class="badge">${count(tests, "test")}</span><span class="badge passed">${passed} passed</span><span class="badge failed">${failed} failed</span><span class="badge flaky">${flaky} flaky</span><span class="badge skipped">${skipped} skipped</span></div>`;
}

/** Status filters without a script: a radio button and a :has() rule each. */
const FILTERS = raw(
  `<div class="filters" role="radiogroup" aria-label="Show">` +
    ["all", "failed", "flaky", "passed", "skipped"]
      .map(
        (name) =>
          `<label><input type="radio" name="show" id="show-${name}"${name === "all" ? " checked" : ""}> ${name}</label>`,
      )
      .join("") +
    `</div>`,
);

function facts(report: RunReport): Markup {
  const { usage, cache } = report;
  const cacheText =
    cache.mode === "off" ? "off" : `${cache.mode}: ${cache.hits} replayed, ${cache.misses} asked the model`;
  return html`<dl class="facts">
<dt>Started</dt><dd>${report.startedAt}</dd>
<dt>Duration</dt><dd>${duration(report.durationMs)}</dd>
<dt>Browser</dt><dd>${report.engine}</dd>
<dt>Model</dt><dd>${report.provider.name} (${report.provider.model})</dd>
<dt>Base URL</dt><dd class="mono">${report.baseUrl ?? "(none)"}</dd>
<dt>Tokens</dt><dd>${usage.inputTokens} in, ${usage.outputTokens} out</dd>
<dt>Action cache</dt><dd>${cacheText}</dd>
</dl>`;
}

function fileCounts(tests: TestResult[]): string {
  const by = (status: string) => tests.filter((test) => shownStatus(test) === status).length;
  const parts = [`${by("passed")} passed`, `${by("failed")} failed`];
  if (by("flaky") > 0) parts.push(`${by("flaky")} flaky`);
  if (by("skipped") > 0) parts.push(`${by("skipped")} skipped`);
  return parts.join(", ");
}

function fileSection(file: RunReport["files"][number]): Markup {
  return html`<section class="file"><h2>${file.file} <span class="muted">${fileCounts(file.tests)}</span></h2>
${file.tests.map(testSection)}</section>`;
}

export function htmlReport(report: RunReport): string {
  const failed = report.totals.failed > 0;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="${raw(REPORT_CONTENT_SECURITY_POLICY)}">
<title>${failed ? "FAILED" : "passed"} · obs test report · ${report.startedAt}</title>
<style>${raw(REPORT_CSS)}</style>
</head>
<body>
<header class="run">
<h1>obs test report</h1>
${totals(report)}${facts(report)}${FILTERS}
</header>
<main>
${report.files.length === 0 ? html`<p class="muted">No tests ran.</p>` : report.files.map(fileSection)}
</main>
<footer>${report.schemaVersion}</footer>
</body>
</html>
`;
  return page.text;
}
