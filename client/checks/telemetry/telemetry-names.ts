/** Names and attributes of the runner's telemetry, in one place so reports and docs agree. Pure. */
import type { StepRecord } from "../agent/agent-loop.js";
import type { TestRef, TestResult } from "../report/run-result.js";

export const INSTRUMENTATION_SCOPE = "obs-runner";
export const RUN_SPAN = "obs.run";
export const TEST_METRIC = "obs.tests";
export const TEST_DURATION_METRIC = "obs.test.duration";
export const TOKEN_METRIC = "gen_ai.client.token.usage";

/**
 * `obs.test.duration`'s bounds, in seconds, 1-2-5 from a tenth of a second to about a quarter of an
 * hour: the SDK's default bounds are meant for milliseconds (0, 5, 10, 25, ...), under which
 * every test shorter than five seconds lands in one bucket and reads 4.75 s at p95.
 */
export const TEST_DURATION_BUCKETS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * `gen_ai.client.token.usage`'s bounds: the semantic conventions' advice. The metric is a
 * histogram there, and coding agents send it as one; the runner records each test's tokens into
 * it, so the two agree on one identity in a shared collector.
 */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

export function testSpanName(test: TestRef): string {
  return `obs.test ${test.name}`;
}

export function stepSpanName(step: StepRecord): string {
  return `obs.step ${step.tool}`;
}

export function testAttributes(test: TestRef): Record<string, string> {
  return { "obs.test.id": test.id, "obs.test.file": test.file, "obs.test.name": test.name };
}

export function stepAttributes(step: StepRecord): Record<string, string | number | boolean> {
  return {
    "obs.step.index": step.index,
    "obs.step.kind": step.kind,
    "obs.step.tool": step.tool,
    "obs.step.instruction": step.instruction,
    "obs.step.ok": step.ok,
    "obs.step.page_changed": step.pageChanged,
    "obs.step.model_ms": Math.round(step.modelMs),
    "url.full": step.url,
  };
}

export function resultAttributes(result: TestResult): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {
    "obs.test.status": result.status,
    "obs.test.steps": result.steps.length,
    "obs.test.attempts": result.attempts.length,
    "obs.test.flaky": result.flaky,
    "gen_ai.usage.input_tokens": result.usage.inputTokens,
    "gen_ai.usage.output_tokens": result.usage.outputTokens,
  };
  if (result.failure) {
    attributes["obs.test.failure.kind"] = result.failure.kind;
    attributes["error.type"] = result.failure.kind;
  }
  return attributes;
}

/** The agent event a step's log record says. */
export function stepLogBody(step: StepRecord): string {
  return `${step.kind} ${step.tool} ${JSON.stringify(step.args)} -> ${step.ok ? "" : "error: "}${step.evidence}`;
}
