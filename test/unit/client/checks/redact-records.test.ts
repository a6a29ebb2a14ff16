import { expect } from "chai";
import type { StepRecord } from "../../../../client/checks/agent/agent-loop.js";
import type { TestResult } from "../../../../client/checks/report/run-result.js";
import { redactLesson, redactTestResult } from "../../../../client/checks/secrets/redact-records.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";

const step: StepRecord = {
  index: 1,
  kind: "act",
  instruction: "type test into the pass field",
  tool: "type",
  args: { index: 2, text: "test" },
  target: { index: 2, role: "input[type=password]", label: "pass" },
  text: "typing test",
  evidence: 'typed "test" into textbox "pass"',
  ok: true,
  url: "http://x/tests?pass=test",
  pageChanged: false,
  durationMs: 5,
  modelMs: 3,
  screenshot: "tests/step-001.png",
};

const result: TestResult = {
  id: "tests/login.obs.ts > test passes",
  file: "tests/login.obs.ts",
  name: "test passes",
  status: "passed",
  startedAt: "2026-11-25T10:00:00.000Z",
  durationMs: 10,
  browserStartMs: null,
  failure: { kind: "check_failed", message: "check failed: the pass is test" },
  steps: [step],
  checks: [{ assertion: "shows test", passed: true, evidence: "test shown", soft: false, quote: "test", refused: 0 }],
  pageErrors: [{ kind: "request", message: "GET /pass?x=test 404", url: "http://x/pass?x=test", time: "t" }],
  failureEvidence: { url: "http://x/?p=test", screenshot: "tests/failure.png", snapshot: "tests/failure.txt" },
  attempts: [
    {
      attempt: 1,
      status: "failed",
      durationMs: 4,
      failure: { kind: "check_failed", message: "test" },
      evidence: { url: "http://x/test", screenshot: "tests/a.png", snapshot: null },
    },
  ],
  flaky: true,
  usage: { inputTokens: 1, outputTokens: 1 },
  cache: { hits: 0, misses: 1 },
};

describe("redaction of the records obs writes", () => {
  it("redacts a test result's free text and never its ids, file, name, status, kinds, tools, paths or times", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "test", other: "pass" });
    const clean = redactTestResult(result, secrets);
    expect([clean.id, clean.file, clean.name, clean.status, clean.startedAt]).to.deep.equal([
      result.id,
      result.file,
      result.name,
      "passed",
      result.startedAt,
    ]);
    const cleanStep = clean.steps[0] as StepRecord;
    expect([cleanStep.tool, cleanStep.kind, cleanStep.screenshot, cleanStep.target?.role]).to.deep.equal([
      "type",
      "act",
      "tests/step-001.png",
      "input[type=password]",
    ]);
    expect(cleanStep.instruction).to.equal("type %password% into the %other% field");
    expect(cleanStep.args).to.deep.equal({ index: 2, text: "%password%" });
    expect(cleanStep.evidence).to.equal('typed "%password%" into textbox "%other%"');
    expect(cleanStep.url).to.equal("http://x/%password%s?%other%=%password%");
    expect(clean.failure).to.deep.equal({ kind: "check_failed", message: "check failed: the %other% is %password%" });
    expect(clean.checks[0]).to.deep.include({ assertion: "shows %password%", quote: "%password%", passed: true });
    expect(clean.pageErrors[0]).to.deep.include({ kind: "request", url: "http://x/%other%?x=%password%" });
    expect(clean.failureEvidence).to.deep.equal({
      url: "http://x/?p=%password%",
      screenshot: "tests/failure.png",
      snapshot: "tests/failure.txt",
    });
    expect(clean.attempts[0]).to.deep.include({
      status: "failed",
      failure: { kind: "check_failed", message: "%password%" },
    });
    expect(clean.attempts[0]?.evidence?.screenshot).to.equal("tests/a.png");
    expect(result.steps[0]?.args).to.deep.equal({ index: 2, text: "test" });
  });

  it("redacts a lesson's text, URL and instruction, not its kind, source or skill", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "runner" });
    const lesson = redactLesson(
      {
        skill: "runner-login",
        lesson: "type runner first",
        source: "runner",
        kind: "lesson",
        url: "http://x/?runner",
        step: 2,
        instruction: "runner",
      },
      secrets,
    );
    expect(lesson).to.deep.equal({
      skill: "runner-login",
      lesson: "type %password% first",
      source: "runner",
      kind: "lesson",
      url: "http://x/?%password%",
      step: 2,
      instruction: "%password%",
    });
  });
});
