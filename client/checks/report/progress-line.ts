/** `--progress-file` lines (schemas/checks/progress-line.json). Pure. */
import type { StepRecord } from "../agent/agent-loop.js";
import type { PageError, TestRef, TestResult } from "./run-result.js";

const ref = (test: TestRef) => ({ id: test.id, file: test.file, name: test.name });

/** `attempt` is 1 for the first run of the test and counts up on each retry. */
export function testStartLine(test: TestRef, time: Date, attempt = 1): object {
  return { type: "test_start", time: time.toISOString(), test: ref(test), attempt };
}

export function actionLine(test: TestRef, step: StepRecord, time: Date): object {
  return {
    type: "action",
    time: time.toISOString(),
    test: ref(test),
    step: {
      index: step.index,
      kind: step.kind,
      tool: step.tool,
      args: step.args,
      target: step.target,
      evidence: step.evidence,
      ok: step.ok,
      url: step.url,
      page_changed: step.pageChanged,
      duration_ms: step.durationMs,
      model_ms: step.modelMs,
      screenshot: step.screenshot,
    },
  };
}

export function frameLine(test: TestRef, path: string, time: Date): object {
  return { type: "frame", time: time.toISOString(), test: ref(test), path };
}

/** An error in the page under test, as it happens: a console error, an uncaught exception, a failed request. */
export function pageErrorLine(test: TestRef, error: PageError, time: Date): object {
  return {
    type: "page_error",
    time: time.toISOString(),
    test: ref(test),
    error: { kind: error.kind, message: error.message, url: error.url, time: error.time },
  };
}

export function testFinishLine(result: TestResult, time: Date): object {
  return {
    type: "test_finish",
    time: time.toISOString(),
    test: ref(result),
    status: result.status,
    duration_ms: result.durationMs,
    steps: result.steps.length,
    failure: result.failure,
    attempts: result.attempts.length,
    flaky: result.flaky,
    failure_evidence: result.failureEvidence,
    usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
  };
}
