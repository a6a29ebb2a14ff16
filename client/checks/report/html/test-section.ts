/**
 * One test in the HTML report: a <details> whose summary shows status and duration, and whose
 * body shows the failure, the evidence captured at it, the attempts, the page errors, the checks
 * and every step. Failed tests are open. Every value goes through `html`, which escapes it.
 */
import type { StepRecord } from "../../agent/agent-loop.js";
import type { AttemptRecord, CheckRecord, FailureEvidence, PageError, TestResult } from "../run-result.js";
import { assetUrl, count, duration, shownStatus } from "./format.js";
import { html, type Markup } from "./markup.js";

function failureBlock(failure: TestResult["failure"]): Markup | null {
  if (!failure) return null;
  return html`<div class="failure"><span class="kind">${failure.kind}</span><pre>${failure.message}</pre></div>`;
}

/** A screenshot that opens at full size when clicked; nothing when its path cannot be linked. */
function image(path: string | null, alt: string): Markup | null {
  const url = assetUrl(path);
  if (!url) return null;
  return html`<a href="${url}" target="_blank"><img src="${url}" alt="${alt}" loading="lazy"></a>`;
}

/** The screenshot, URL and snapshot link of a failure. */
function evidenceFigure(evidence: FailureEvidence, alt: string): Markup {
  const snapshot = assetUrl(evidence.snapshot);
  return html`<figure class="failure-evidence">${image(evidence.screenshot, alt)}
<figcaption>URL: <span class="mono">${evidence.url ?? "(unknown)"}</span>${
    snapshot ? html` · <a href="${snapshot}" target="_blank">page snapshot (text)</a>` : null
  }${evidence.screenshot ? null : " · no screenshot"}</figcaption></figure>`;
}

function evidenceBlock(evidence: FailureEvidence | null): Markup | null {
  if (!evidence) return null;
  return html`<h3>At the failure</h3>${evidenceFigure(evidence, "The page when the test failed")}`;
}

const sameEvidence = (a: FailureEvidence, b: FailureEvidence | null) =>
  b !== null && a.screenshot === b.screenshot && a.snapshot === b.snapshot && a.url === b.url;

/** Every attempt; a failed one with the page as it failed (a flaky test's failure is seen only here). */
function attemptsBlock(attempts: AttemptRecord[], shown: FailureEvidence | null): Markup | null {
  if (attempts.length < 2) return null;
  const evidence = (attempt: AttemptRecord) =>
    attempt.status === "failed" && attempt.evidence && !sameEvidence(attempt.evidence, shown)
      ? evidenceFigure(attempt.evidence, `The page when attempt ${attempt.attempt} failed`)
      : null;
  const item = (attempt: AttemptRecord) =>
    html`<li class="attempt ${attempt.status}"><span class="badge ${attempt.status}">${attempt.status}</span> attempt ${attempt.attempt} <span class="muted">${duration(attempt.durationMs)}</span>${
      attempt.failure ? html` <span class="tag">${attempt.failure.kind}</span>${attempt.failure.message}` : null
    }${evidence(attempt)}</li>`;
  return html`<h3>Attempts (${attempts.length})</h3><ul class="plain attempts">${attempts.map(item)}</ul>`;
}

function pageErrorsBlock(errors: PageError[]): Markup | null {
  if (errors.length === 0) return null;
  const item = (error: PageError) =>
    html`<li class="page-error"><span class="tag">${error.kind}</span><span class="message">${error.message}</span>${
      error.url ? html` <span class="muted mono">${error.url}</span>` : null
    } <span class="muted">${error.time}</span></li>`;
  return html`<h3>Page errors (${errors.length})</h3><ul class="plain page-errors">${errors.map(item)}</ul>`;
}

function checkItem(check: CheckRecord): Markup {
  const refused =
    check.refused > 0
      ? html`<div class="refusals">${count(check.refused, "verdict")} refused: the quoted evidence was not on the page</div>`
      : null;
  return html`<li class="check ${check.passed ? "ok" : "bad"}${check.refused > 0 ? " refused" : ""}"><span class="verdict">${
    check.passed ? "held" : "did not hold"
  }</span>${check.soft ? html` <span class="tag">soft</span>` : null} ${check.assertion}${
    check.quote !== null ? html`<blockquote class="quote">${check.quote}</blockquote>` : null
  }<div class="muted">evidence: ${check.evidence}</div>${refused}</li>`;
}

function checksBlock(checks: CheckRecord[]): Markup | null {
  if (checks.length === 0) return null;
  return html`<h3>Checks (${checks.length})</h3><ul class="plain checks">${checks.map(checkItem)}</ul>`;
}

function stepItem(step: StepRecord): Markup {
  const target = step.target ? html`<span class="target">${step.target.role} "${step.target.label}"</span>` : null;
  const args = Object.keys(step.args).length > 0 ? JSON.stringify(step.args) : null;
  return html`<li class="step ${step.ok ? "ok" : "bad"}"><div class="line"><span class="idx">${step.index}</span><span class="tag">${step.kind}</span><code class="tool">${step.tool}</code>${target}<span class="result">${
    step.ok ? "ok" : "error"
  }</span><span class="dur">${duration(step.durationMs)}${step.modelMs > 0 ? ` · model ${duration(step.modelMs)}` : ""}</span></div>
<div class="instruction">${step.instruction}</div>
<div class="evidence">→ ${step.evidence}</div>${step.text ? html`<div class="said muted">model: ${step.text}</div>` : null}${
    args ? html`<code class="args muted">${args}</code>` : null
  }<div class="url muted mono">${step.url}${step.pageChanged ? " (page changed)" : ""}</div>${image(
    step.screenshot,
    `Screenshot after step ${step.index}`,
  )}</li>`;
}

function stepsBlock(steps: StepRecord[]): Markup | null {
  if (steps.length === 0) return null;
  return html`<h3>Steps (${steps.length})</h3><ol class="steps">${steps.map(stepItem)}</ol>`;
}

function factsLine(test: TestResult): Markup {
  const browser = test.browserStartMs === null ? null : ` · browser started in ${duration(test.browserStartMs)}`;
  return html`<div class="muted">started ${test.startedAt}${browser} · tokens ${test.usage.inputTokens} in, ${test.usage.outputTokens} out · cache ${test.cache.hits} replayed, ${test.cache.misses} asked the model</div>`;
}

export function testSection(test: TestResult): Markup {
  const status = shownStatus(test);
  const retried =
    test.attempts.length > 1 ? html`<span class="meta">${count(test.attempts.length, "attempt")}</span>` : null;
  const timing = test.status === "skipped" ? null : html`<span class="meta">${duration(test.durationMs)}</span>`;
  const body =
    test.status === "skipped"
      ? html`<div class="test-body muted">skipped: not run</div>`
      : html`<div class="test-body">${factsLine(test)}${failureBlock(test.failure)}${evidenceBlock(test.failureEvidence)}${attemptsBlock(
          test.attempts,
          test.failureEvidence,
        )}${pageErrorsBlock(test.pageErrors)}${checksBlock(test.checks)}${stepsBlock(test.steps)}</div>`;
  return html`<details class="test ${status}"${status === "failed" ? html` open` : null}><summary><span class="badge ${status}">${status}</span><span class="name">${test.name}</span>${retried}${timing}</summary>${body}</details>`;
}
