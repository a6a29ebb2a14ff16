/** What a run produced: the data every reporter formats. */
import type { StepRecord } from "../agent/agent-loop.js";
import type { TokenUsage } from "../providers/model-provider.js";

export type TestStatus = "passed" | "failed" | "skipped";

/**
 * Why a test failed: a check that did not hold (or whose evidence was not on the page), an
 * instruction the agent could not carry out, a stop, errors on the page (`failOnPageErrors`),
 * or an error in the spec or the runner.
 */
export type FailureKind = "check_failed" | "act_failed" | "max_steps" | "stall" | "timeout" | "page_errors" | "error";

export interface CheckRecord {
  assertion: string;
  passed: boolean;
  evidence: string;
  soft: boolean;
  /** A passing verdict's quote, found on the page when it was given; null for a failed verdict. */
  quote: string | null;
  /** Passing verdicts the runner refused because their quote was not on the page. */
  refused: number;
}

/** Something that went wrong in the page under test, as the browser reported it. */
export interface PageError {
  /** `console`: console.error; `exception`: an uncaught exception or rejection; `request`: a failed or 4xx/5xx request. */
  kind: "console" | "exception" | "request";
  message: string;
  /**
   * The script that logged or threw, which is the page itself for its inline scripts (console,
   * exception), or the request's URL (request); null when the browser gave none.
   */
  url: string | null;
  time: string;
}

/** What the page looked like when a test failed; paths are relative to the report directory. */
export interface FailureEvidence {
  url: string | null;
  /** PNG of the viewport at the failure; null when the browser could not take one. */
  screenshot: string | null;
  /** The page as the model reads it (page-snapshot.ts formatSnapshot), as a text file; null when none. */
  snapshot: string | null;
}

/** One run of a test: the first, and each retry. */
export interface AttemptRecord {
  /** 1 for the first run. */
  attempt: number;
  status: "passed" | "failed";
  durationMs: number;
  failure: { kind: FailureKind; message: string } | null;
  /** What the page looked like when this attempt failed (JUnit attaches a flaky attempt's screenshot). */
  evidence?: FailureEvidence | null;
}

/** Instructions replayed from the action cache, and those that needed the model. */
export interface CacheStats {
  hits: number;
  misses: number;
}

export interface TestResult {
  /** `<file relative to the working folder> > <test name>`. */
  id: string;
  file: string;
  name: string;
  status: TestStatus;
  startedAt: string;
  durationMs: number;
  browserStartMs: number | null;
  failure: { kind: FailureKind; message: string } | null;
  /** The steps, checks and page errors of the last attempt. */
  steps: StepRecord[];
  checks: CheckRecord[];
  pageErrors: PageError[];
  /** Page errors past the first 100, counted but not kept (browser/page-errors.ts). */
  pageErrorsOmitted?: number;
  /** Set when the test failed; null otherwise. */
  failureEvidence: FailureEvidence | null;
  /** Every run of the test, oldest first; one entry when it was not retried. */
  attempts: AttemptRecord[];
  /** Passed on a retry after failing (the status is "passed"). */
  flaky: boolean;
  usage: TokenUsage;
  cache: CacheStats;
}

export interface RunReport {
  schemaVersion: "obs.report/v1";
  startedAt: string;
  durationMs: number;
  engine: string;
  provider: { name: string; model: string };
  baseUrl: string | null;
  /** `flaky` counts tests that passed on a retry; they are also counted as passed. */
  totals: { tests: number; passed: number; failed: number; skipped: number; flaky: number };
  usage: TokenUsage;
  cache: CacheStats & { mode: string };
  files: { file: string; tests: TestResult[] }[];
}

export interface TestRef {
  id: string;
  file: string;
  name: string;
}

/** One reporter: it hears the run as it happens and may write files at the end. */
export interface Reporter {
  onRunStart?(info: { tests: number; files: number; engine: string; provider: string; model: string }): void;
  /** `attempt` is 1 for the first run and counts up on each retry. */
  onTestStart?(test: TestRef, attempt: number): void;
  onStep?(test: TestRef, step: StepRecord): void;
  onFrame?(test: TestRef, path: string): void;
  /** An error in the page under test, as it happens (already redacted). */
  onPageError?(test: TestRef, error: PageError): void;
  onTestFinish?(result: TestResult): void;
  onRunFinish?(report: RunReport): Promise<void> | void;
}
