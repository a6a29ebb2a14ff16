import { readFileSync } from "node:fs";
import { expect } from "chai";
import { XMLParser } from "fast-xml-parser";
import type { StepRecord } from "../../../../client/checks/agent/agent-loop.js";
import type { RunSettings } from "../../../../client/checks/config/run-settings.js";
import { summaryLines, testLine } from "../../../../client/checks/report/console-summary.js";
import { jsonReport } from "../../../../client/checks/report/json-report.js";
import { junitXml } from "../../../../client/checks/report/junit-report.js";
import {
  actionLine,
  frameLine,
  testFinishLine,
  testStartLine,
} from "../../../../client/checks/report/progress-line.js";
import { reportersFor } from "../../../../client/checks/report/reporters.js";
import type { RunReport, TestResult } from "../../../../client/checks/report/run-result.js";
import { packagePath } from "../../../../shared/package-root.js";
import { compileSchema } from "../../../helpers/schema-validator.js";

const step = (index: number, screenshot: string | null): StepRecord => ({
  index,
  kind: "act",
  instruction: "sign in",
  tool: "click",
  args: { index: 3 },
  target: { index: 3, role: "button", label: "Sign in" },
  text: null,
  evidence: "clicked [3]",
  ok: true,
  url: "http://127.0.0.1/login",
  pageChanged: true,
  durationMs: 40,
  modelMs: 10,
  screenshot,
});

const passed: TestResult = {
  id: "tests/login.obs.ts > signs in",
  file: "tests/login.obs.ts",
  name: "signs in",
  status: "passed",
  startedAt: "2026-11-22T10:00:00.000Z",
  durationMs: 2500,
  browserStartMs: 900,
  failure: null,
  steps: [step(1, "screenshots/login/signs-in/step-001.png"), step(2, null)],
  checks: [
    { assertion: "greets ada", passed: true, evidence: "Welcome, ada", soft: false, quote: "Welcome, ada", refused: 0 },
  ],
  pageErrors: [],
  failureEvidence: null,
  attempts: [{ attempt: 1, status: "passed", durationMs: 2500, failure: null }],
  flaky: false,
  usage: { inputTokens: 100, outputTokens: 10 },
  cache: { hits: 0, misses: 0 },
};
const failed: TestResult = {
  ...passed,
  id: 'tests/login.obs.ts > shows <errors> & "quotes"',
  name: 'shows <errors> & "quotes"',
  status: "failed",
  durationMs: 1500,
  failure: { kind: "check_failed", message: 'check failed: "error shown": no error, only ]]> and \u001b[31m' },
  steps: [step(1, null)],
};
const skipped: TestResult = {
  ...passed,
  id: "tests/todo.obs.ts > later",
  file: "tests/todo.obs.ts",
  name: "later",
  status: "skipped",
  durationMs: 0,
  steps: [],
};
const REPORT: RunReport = {
  schemaVersion: "obs.report/v1",
  startedAt: "2026-11-22T10:00:00.000Z",
  durationMs: 4100,
  engine: "engine_a",
  provider: { name: "mock", model: "mock" },
  baseUrl: "http://127.0.0.1:3000",
  totals: { tests: 3, passed: 1, failed: 1, skipped: 1, flaky: 0 },
  usage: { inputTokens: 200, outputTokens: 20 },
  cache: { mode: "off", hits: 0, misses: 0 },
  files: [
    { file: "tests/login.obs.ts", tests: [passed, failed] },
    { file: "tests/todo.obs.ts", tests: [skipped] },
  ],
};

describe("browser-check reports", () => {
  it("writes JUnit XML that parses back to one suite per file with failures, skips and attachments", () => {
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(junitXml(REPORT));
    const root = parsed.testsuites;
    expect(root).to.deep.include({ tests: "3", failures: "1", skipped: "1", errors: "0", time: "4.100" });
    const suites = root.testsuite;
    expect(suites.map((suite: { name: string }) => suite.name)).to.deep.equal([
      "tests/login.obs.ts",
      "tests/todo.obs.ts",
    ]);
    expect(suites[0]).to.deep.include({ tests: "2", failures: "1", skipped: "0", hostname: "engine_a", time: "4.000" });
    const [ok, bad] = suites[0].testcase;
    expect(ok).to.deep.include({ name: "signs in", classname: "tests/login.obs.ts", time: "2.500" });
    expect(ok["system-out"]).to.equal("\n[[ATTACHMENT|screenshots/login/signs-in/step-001.png]]\n");
    expect(bad.name).to.equal('shows <errors> & "quotes"');
    expect(bad.failure.type).to.equal("check_failed");
    expect(bad.failure.message).to.equal('check failed: "error shown": no error, only ]]> and [31m');
    expect(bad.failure["#text"]).to.include('step 1 click {"index":3}: clicked [3]');
    expect(suites[1].testcase).to.have.property("skipped");
  });

  it("writes JUnit XML of XML 1.0 characters only, whatever the page logged (U+FFFE, U+FFFF, lone surrogates)", () => {
    const odd = "a\uffffb\ufffec\ud800d\udc00e \ud83d\ude00 \u0007";
    const report: RunReport = {
      ...REPORT,
      files: [
        {
          file: "tests/odd.obs.ts",
          tests: [
            {
              ...failed,
              name: `odd ${odd}`,
              failure: { kind: "error", message: `threw ${odd}` },
              pageErrors: [{ kind: "console", message: `logged ${odd}`, url: null, time: "2026-11-22T10:00:01.000Z" }],
            },
          ],
        },
      ],
    };
    const xml = junitXml(report);
    // XML 1.0's Char production: any other character makes a strict parser refuse the file.
    const XML_CHARS = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
    expect(XML_CHARS.test(xml)).to.equal(true);
    // A whole surrogate pair is a character like any other, and is kept.
    expect(xml).to.include("abcde \ud83d\ude00");
  });

  it("prints a tool name from the model under --verbose with its control characters escaped", () => {
    const [verbose] = reportersFor({ reporters: [], verbose: true, progressFile: null } as unknown as RunSettings);
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stderr.write;
    try {
      verbose?.onStep?.(passed, { ...step(1, null), tool: "click\u001b]0;owned\u0007\u001b[2J" });
    } finally {
      process.stderr.write = write;
    }
    expect(written.join("")).to.include("step 1 act click");
    expect(written.join("")).not.to.include("\u001b");
    expect(written.join("")).not.to.include("\u0007");
  });

  it("writes the JSON report with every test, step, verdict, duration and token usage", () => {
    const report = JSON.parse(jsonReport(REPORT));
    expect(report.schema_version).to.equal("obs.report/v1");
    expect(report.totals).to.deep.equal({ tests: 3, passed: 1, failed: 1, skipped: 1, flaky: 0 });
    const test = report.files[0].tests[0];
    expect(test).to.deep.include({ status: "passed", duration_ms: 2500, browser_start_ms: 900 });
    expect(test.usage).to.deep.equal({ input_tokens: 100, output_tokens: 10 });
    expect(test.checks).to.deep.equal([
      {
        assertion: "greets ada",
        passed: true,
        evidence: "Welcome, ada",
        soft: false,
        quote: "Welcome, ada",
        refused: 0,
      },
    ]);
    expect(test.steps[0]).to.deep.include({ tool: "click", evidence: "clicked [3]", page_changed: true, model_ms: 10 });
  });

  it("prints one line per test and the totals, with control characters escaped", () => {
    expect(testLine(passed)).to.equal("  PASS  tests/login.obs.ts > signs in (2.5 s, 2 steps)");
    expect(testLine(failed)).to.equal(
      '  FAIL  tests/login.obs.ts > shows <errors> & "quotes" (1.5 s, 1 step)\n        check failed: "error shown": no error, only ]]> and \\x1b[31m',
    );
    expect(testLine(skipped)).to.equal("  SKIP  tests/todo.obs.ts > later");
    expect(summaryLines(REPORT, [".obs/report.json"])).to.equal(
      "3 tests: 1 passed, 1 failed, 1 skipped (4.1 s); model tokens 200 in, 20 out\nreports: .obs/report.json",
    );
    const cached = { ...REPORT, cache: { mode: "read-only", hits: 3, misses: 1 } };
    expect(summaryLines(cached, [])).to.equal(
      "3 tests: 1 passed, 1 failed, 1 skipped (4.1 s); model tokens 200 in, 20 out\naction cache (read-only): 3 replayed, 1 asked the model",
    );
  });

  it("writes progress lines valid against schemas/checks/progress-line.json", () => {
    const validate = compileSchema(
      JSON.parse(readFileSync(packagePath("schemas", "checks", "progress-line.json"), "utf8")) as object,
    );
    const now = new Date("2026-11-22T10:00:00Z");
    const lines = [
      testStartLine(passed, now),
      actionLine(passed, step(1, "screenshots/a.png"), now),
      frameLine(passed, "screenshots/a.png", now),
      testStartLine(passed, now, 2),
      testFinishLine(failed, now),
      testFinishLine(passed, now),
      testFinishLine({ ...failed, failureEvidence: { url: null, screenshot: "failures/a.png", snapshot: null } }, now),
    ];
    for (const line of lines) expect(validate(line), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...testStartLine(passed, now), type: "test_begin" })).to.equal(false);
  });

  const evidence = (dir: string) => ({
    url: "http://127.0.0.1:3000/shop.html",
    screenshot: `failures/login/${dir}/screenshot.png`,
    snapshot: `failures/login/${dir}/snapshot.txt`,
  });
  const flaky: TestResult = {
    ...passed,
    flaky: true,
    attempts: [
      {
        attempt: 1,
        status: "failed",
        durationMs: 900,
        failure: { kind: "check_failed", message: "total wrong" },
        evidence: evidence("signs-in"),
      },
      { attempt: 2, status: "passed", durationMs: 1600, failure: null, evidence: null },
    ],
  };
  const exhausted: TestResult = {
    ...failed,
    failureEvidence: evidence("shows/retry-1"),
    attempts: [
      { attempt: 1, status: "failed", durationMs: 700, failure: { kind: "timeout", message: "timed out" } },
      { attempt: 2, status: "failed", durationMs: 800, failure: failed.failure, evidence: evidence("shows/retry-1") },
    ],
  };

  it("marks a test that passed on a retry FLAKY, and shows a failure's screenshot", () => {
    expect(testLine(flaky)).to.equal(
      "  FLAKY tests/login.obs.ts > signs in (2.5 s, 2 steps, passed on attempt 2)\n        attempt 1: total wrong",
    );
    expect(testLine(exhausted, ".obs")).to.equal(
      [
        '  FAIL  tests/login.obs.ts > shows <errors> & "quotes" (1.5 s, 1 step, failed 2 attempts)',
        '        check failed: "error shown": no error, only ]]> and \\x1b[31m',
        "        screenshot: .obs/failures/login/shows/retry-1/screenshot.png",
      ].join("\n"),
    );
    const withFlaky = { ...REPORT, totals: { ...REPORT.totals, flaky: 1 } };
    expect(summaryLines(withFlaky, [])).to.equal(
      "3 tests: 1 passed, 1 failed, 1 skipped, 1 flaky (4.1 s); model tokens 200 in, 20 out",
    );
  });

  it("writes retries in Surefire's rerun format: flakyFailure for a flaky test, rerunFailure for one that never passed", () => {
    const report: RunReport = {
      ...REPORT,
      totals: { ...REPORT.totals, flaky: 1 },
      files: [{ file: "tests/login.obs.ts", tests: [flaky, exhausted] }],
    };
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(junitXml(report));
    const suite = parsed.testsuites.testsuite;
    expect(suite).to.deep.include({ tests: "2", failures: "1" });
    const [passedOnRetry, neverPassed] = suite.testcase;
    expect(passedOnRetry).not.to.have.property("failure");
    expect(passedOnRetry.flakyFailure).to.deep.include({ message: "total wrong", type: "check_failed" });
    expect(passedOnRetry.flakyFailure.stackTrace).to.equal("attempt 1: total wrong");
    expect(passedOnRetry["system-out"]).to.include("[[ATTACHMENT|failures/login/signs-in/screenshot.png]]");
    expect(neverPassed.failure.type).to.equal("check_failed");
    expect(neverPassed.rerunFailure).to.deep.include({ message: "timed out", type: "timeout" });
    expect(neverPassed["system-out"]).to.include("[[ATTACHMENT|failures/login/shows/retry-1/screenshot.png]]");

    const json = JSON.parse(jsonReport(report));
    expect(json.totals.flaky).to.equal(1);
    const test = json.files[0].tests[0];
    expect(test.flaky).to.equal(true);
    expect(test.attempts[0]).to.deep.include({ attempt: 1, status: "failed", duration_ms: 900 });
    expect(json.files[0].tests[1].failure_evidence).to.deep.equal(evidence("shows/retry-1"));
  });

  it("tells each attempt in the progress lines, and a finished test's attempts, flakiness and evidence", () => {
    const now = new Date("2026-11-22T10:00:00Z");
    expect(testStartLine(passed, now, 2)).to.deep.include({ type: "test_start", attempt: 2 });
    expect(testFinishLine(flaky, now)).to.deep.include({ attempts: 2, flaky: true, failure_evidence: null });
    expect(testFinishLine(exhausted, now)).to.deep.include({
      attempts: 2,
      flaky: false,
      failure_evidence: evidence("shows/retry-1"),
    });
  });
});
