/** What a run produced: the data every reporter formats. */
import type { StepRecord } from "../agent/agent-loop.js";
import type { TokenUsage } from "../providers/model-provider.js";

export type TestStatus = "passed" | "failed" | "skipped";

/** Why a test failed: a check that did not hold, an instruction the agent gave up on, a stop, or an error. */
export type FailureKind = "check_failed" | "act_failed" | "max_steps" | "stall" | "timeout" | "error";

export interface CheckRecord {
  assertion: string;
  passed: boolean;
  evidence: string;
  soft: boolean;
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
  steps: StepRecord[];
  checks: CheckRecord[];
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
  totals: { tests: number; passed: number; failed: number; skipped: number };
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
  onTestStart?(test: TestRef): void;
  onStep?(test: TestRef, step: StepRecord): void;
  onFrame?(test: TestRef, path: string): void;
  onTestFinish?(result: TestResult): void;
  onRunFinish?(report: RunReport): Promise<void> | void;
}
