/**
 * Retries (`--retries N`): a failed test runs again, up to N more times, each attempt in a fresh
 * browser session with fresh steps. The result is the last attempt's; a test that passes after
 * failing is flaky (status "passed", `flaky: true`), as Playwright and Surefire report it.
 */
import type { AttemptRecord, TestResult } from "../report/run-result.js";

/** One attempt as the test's `attempts` lists it. */
export function attemptRecord(result: TestResult, attempt: number): AttemptRecord {
  return {
    attempt,
    status: result.status === "passed" ? "passed" : "failed",
    durationMs: result.durationMs,
    failure: result.failure,
    evidence: result.failureEvidence,
  };
}

/**
 * The test's result from its attempts, oldest first: the last one's steps, checks, page errors
 * and evidence; the time and tokens of all of them (they were all spent). Pure.
 */
export function combineAttempts(results: TestResult[]): TestResult {
  const last = results.at(-1);
  if (!last) throw new Error("a test has at least one attempt");
  const first = results[0] as TestResult;
  if (last.status === "skipped") return { ...last, attempts: [] };
  const sum = (pick: (result: TestResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  return {
    ...last,
    startedAt: first.startedAt,
    durationMs: sum((result) => result.durationMs),
    browserStartMs: last.browserStartMs,
    attempts: results.map((result, index) => attemptRecord(result, index + 1)),
    flaky: last.status === "passed" && results.length > 1,
    usage: {
      inputTokens: sum((result) => result.usage.inputTokens),
      outputTokens: sum((result) => result.usage.outputTokens),
    },
    cache: { hits: sum((result) => result.cache.hits), misses: sum((result) => result.cache.misses) },
  };
}

/** Runs attempts until one does not fail or `retries` reruns are used up. */
export async function runAttempts(
  retries: number,
  attempt: (number: number) => Promise<TestResult>,
): Promise<TestResult> {
  const results: TestResult[] = [];
  for (let number = 1; number <= retries + 1; number++) {
    const result = await attempt(number);
    results.push(result);
    if (result.status !== "failed") break;
  }
  return combineAttempts(results);
}
