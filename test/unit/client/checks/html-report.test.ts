import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { resolveRunSettings } from "../../../../client/checks/config/run-settings.js";
import { assetUrl, duration } from "../../../../client/checks/report/html/format.js";
import { escapeHtml, html, raw } from "../../../../client/checks/report/html/markup.js";
import { HTML_REPORT, htmlReport } from "../../../../client/checks/report/html-report.js";
import { reportersFor } from "../../../../client/checks/report/reporters.js";
import type { RunReport, TestResult } from "../../../../client/checks/report/run-result.js";
import { packagePath } from "../../../../shared/package-root.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const fixture = (): RunReport =>
  JSON.parse(readFileSync(packagePath("test", "fixtures", "checks", "report", "run-report.json"), "utf8")) as RunReport;

/** The markup of one test: from its <details> to the next test's (or the end of its file). */
function testMarkup(page: string, name: string): string {
  const start = page.indexOf(`<span class="name">${escapeHtml(name)}</span>`);
  expect(start, `test ${name} in the page`).to.be.greaterThan(-1);
  const open = page.lastIndexOf("<details", start);
  const end = page.indexOf("</details>", start);
  return page.slice(open, end);
}

describe("the HTML report", () => {
  const report = fixture();
  const page = htmlReport(report);
  const shop = report.files[0]?.tests ?? [];
  const failed = shop[0] as TestResult;

  it("lists the run: date, duration, engine, model, base URL, totals with flaky, tokens and cache", () => {
    for (const text of [
      "2026-11-25T16:00:00.000Z",
      "1 min 2 s",
      "engine_a",
      "mock (transcript.json)",
      "http://127.0.0.1:4173",
      "5 tests",
      "3 passed",
      "1 failed",
      "1 flaky",
      "1 skipped",
      "5120 in, 384 out",
      "read-write: 2 replayed, 7 asked the model",
      "obs.report/v1",
    ]) {
      expect(page, text).to.include(text);
    }
  });

  it("shows each test's status as text with its colour class and duration; failed tests are open", () => {
    const failedTest = testMarkup(page, failed.name);
    expect(failedTest).to.match(/^<details class="test failed" open>/);
    expect(failedTest).to.include('<span class="badge failed">failed</span>');
    expect(failedTest).to.include("8.4 s");
    const flaky = testMarkup(page, "checkout answers");
    expect(flaky).to.match(/^<details class="test flaky">/);
    expect(flaky).to.include('<span class="badge flaky">flaky</span>');
    const skipped = testMarkup(page, "pays with a voucher");
    expect(skipped).to.match(/^<details class="test skipped">/);
    expect(skipped).to.include('<span class="badge skipped">skipped</span>');
    const passed = testMarkup(page, report.files[1]?.tests[0]?.name ?? "");
    expect(passed).to.match(/^<details class="test passed">/);
    expect(passed).to.include("2.5 s");
  });

  it("shows the failure, its evidence, the page errors, every step and every check of a failed test", () => {
    const markup = testMarkup(page, failed.name);
    expect(markup).to.include('<span class="kind">check_failed</span>');
    expect(markup).to.include("check failed: &quot;the total reads 40.00&quot;: the page reads Total: 30.00");
    // Failure evidence: the screenshot, the URL and the snapshot file, linked from report/.
    expect(markup).to.include('<img src="../failures/tests-shop-obs-ts/the-cart-total-counts-every-item/failure.png"');
    expect(markup).to.include('href="../failures/tests-shop-obs-ts/the-cart-total-counts-every-item/snapshot.txt"');
    expect(markup).to.include('URL: <span class="mono">http://127.0.0.1:4173/shop.html</span>');
    for (const error of failed.pageErrors) {
      expect(markup).to.include(`<span class="tag">${error.kind}</span>`);
      expect(markup).to.include(escapeHtml(error.message));
      if (error.url) expect(markup).to.include(error.url);
    }
    expect(markup).to.include("Steps (4)");
    for (const step of failed.steps) {
      expect(markup).to.include(`<span class="idx">${step.index}</span><span class="tag">${step.kind}</span>`);
      expect(markup).to.include(`<code class="tool">${step.tool}</code>`);
      expect(markup).to.include(`<div class="instruction">${escapeHtml(step.instruction)}</div>`);
      expect(markup).to.include(escapeHtml(step.evidence));
      expect(markup).to.include(duration(step.durationMs));
      if (step.text) expect(markup).to.include(`model: ${escapeHtml(step.text)}`);
      if (step.screenshot) expect(markup).to.include(`<img src="../${step.screenshot}"`);
    }
    expect(markup).to.include('<span class="target">spinbutton "Quantity of Tea"</span>');
    expect(markup).to.include('<li class="step bad">');
    expect(markup).to.include('<span class="result">error</span>');
    expect(markup).to.include('<span class="result">ok</span>');
    // Checks: verdict, quote, evidence, soft, and the verdicts refused for want of the quote on the page.
    expect(markup).to.include('<span class="verdict">did not hold</span> the total reads 40.00');
    expect(markup).to.include("1 verdict refused: the quoted evidence was not on the page");
    expect(markup).to.include('<span class="verdict">held</span> <span class="tag">soft</span> the cart lists Coffee');
    expect(markup).to.include('<blockquote class="quote">Coffee 20.00</blockquote>');
    expect(markup).to.include("evidence: the cart has a Coffee row");
  });

  it("shows every attempt of a retried test", () => {
    const markup = testMarkup(page, "checkout answers");
    expect(markup).to.include("2 attempts");
    expect(markup).to.include("Attempts (2)");
    expect(markup).to.include('<span class="badge failed">failed</span> attempt 1');
    expect(markup).to.include('<span class="tag">timeout</span>the test took longer than 2000 ms');
    expect(markup).to.include('<span class="badge passed">passed</span> attempt 2');
  });

  it("shows each failed attempt's evidence under it: a flaky test's screenshot, URL and snapshot", () => {
    const retried = fixture();
    const flaky = retried.files[0]?.tests.find((test) => test.name === "checkout answers") as TestResult;
    const first = flaky.attempts[0];
    if (!first) throw new Error("the fixture's flaky test has a first attempt");
    first.evidence = {
      url: "http://127.0.0.1:4173/checkout.html",
      screenshot: "failures/tests-shop-obs-ts/checkout-answers/screenshot.png",
      snapshot: "failures/tests-shop-obs-ts/checkout-answers/snapshot.txt",
    };
    const markup = testMarkup(htmlReport(retried), "checkout answers");
    const attempt1 = markup.slice(markup.indexOf("attempt 1"), markup.indexOf("attempt 2"));
    expect(attempt1).to.include('<img src="../failures/tests-shop-obs-ts/checkout-answers/screenshot.png"');
    expect(attempt1).to.include('href="../failures/tests-shop-obs-ts/checkout-answers/snapshot.txt"');
    expect(attempt1).to.include('URL: <span class="mono">http://127.0.0.1:4173/checkout.html</span>');
    // The passing attempt has none, and a test whose last attempt failed shows its evidence once, not twice.
    expect(markup.slice(markup.indexOf("attempt 2"))).not.to.include("<img");
    const broken = fixture();
    const failedTest = broken.files[0]?.tests[0] as TestResult;
    const last = failedTest.attempts[0] as NonNullable<(typeof failedTest.attempts)[0]>;
    failedTest.attempts = [
      { ...last, attempt: 1, evidence: { url: null, screenshot: "failures/first/screenshot.png", snapshot: null } },
      { ...last, attempt: 2, evidence: failedTest.failureEvidence },
    ];
    const twice = testMarkup(htmlReport(broken), failedTest.name);
    expect(twice.slice(twice.indexOf("attempt 1"), twice.indexOf("attempt 2"))).to.include(
      '<img src="../failures/first/screenshot.png"',
    );
    // The last attempt's evidence is the test's: one image (its link and its source), not two.
    expect(twice.split("the-cart-total-counts-every-item/failure.png").length - 1).to.equal(2);
  });

  it("escapes every string from the run: a test name, a label or model text with markup shows as text", () => {
    expect(page).not.to.include("<script>");
    expect(page).not.to.include("<img src=x");
    expect(page).not.to.include("<b>typing</b>");
    expect(page).to.include("greets &lt;script&gt;window.pwned = 1&lt;/script&gt; &amp; &quot;ada&quot;");
    expect(page).to.include("&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;");
    expect(page).to.include("model: &lt;b&gt;typing&lt;/b&gt;");
  });

  it("loads nothing from the network and runs no script", () => {
    expect(page).not.to.match(/<script|<link|@import|url\(/i);
    const addresses = [...page.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
    expect(addresses).to.have.length.greaterThan(3);
    for (const address of addresses) expect(address).to.match(/^\.\.\/[^:]*$/);
    expect(page).to.include(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">`,
    );
    expect(page).to.include("prefers-color-scheme: dark");
    expect(page).to.include('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it("says so when no test ran", () => {
    const empty = htmlReport({
      ...report,
      files: [],
      totals: { tests: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 },
    });
    expect(empty).to.include("No tests ran.");
  });

  it("links report files relative to report/, encoded, and never a path that leaves the report directory", () => {
    expect(assetUrl("screenshots/a b/step #1?.png")).to.equal("../screenshots/a%20b/step%20%231%3F.png");
    expect(assetUrl("screenshots\\login\\step-001.png")).to.equal("../screenshots/login/step-001.png");
    expect(assetUrl("./failures/x.png")).to.equal("../failures/x.png");
    expect(assetUrl("../../etc/passwd")).to.equal(null);
    expect(assetUrl("failures/../../x.png")).to.equal(null);
    expect(assetUrl("/etc/passwd")).to.equal(null);
    expect(assetUrl("C:/Users/x.png")).to.equal(null);
    expect(assetUrl("javascript:alert(1)")).to.equal("../javascript%3Aalert(1)");
    expect(assetUrl(null)).to.equal(null);
  });

  it("escapes interpolated text but keeps markup it built", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}${[1, " & ", ["x"]]}${null}${false}${undefined}</p>`.text).to.equal(
      "<p><b>&lt;i&gt;</b>1 &amp; x</p>",
    );
    expect(html`<a title="${`"'\u0000`}">`.text).to.equal('<a title="&quot;&#39;\ufffd">');
    expect(raw("<hr>").text).to.equal("<hr>");
  });

  it("is written to <report-dir>/report/index.html by --reporter html, and by all", async () => {
    for (const reporter of ["html", "all"]) {
      const dir = tempDir("obs-html-");
      try {
        const settings = resolveRunSettings(
          { provider: "mock", mockTranscript: "t.json", reporter },
          {},
          dir.path,
          {},
          dir.path,
        );
        const original = process.stdout.write;
        // The basic reporter (in `all`) prints a summary; this test reads the file.
        process.stdout.write = (() => true) as typeof process.stdout.write;
        try {
          for (const each of reportersFor(settings)) await each.onRunFinish?.(report);
        } finally {
          process.stdout.write = original;
        }
        const path = join(settings.reportDir, HTML_REPORT);
        expect(existsSync(path), reporter).to.equal(true);
        expect(readFileSync(path, "utf8")).to.equal(page);
      } finally {
        dir.cleanup();
      }
    }
  });
});
