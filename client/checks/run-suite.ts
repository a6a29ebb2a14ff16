/**
 * The runner core: loads the specs, runs each test in its own browser session with the agent,
 * tells the reporters, and returns the report. The CLI adapter decides the exit code.
 */

import { mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { hideUrlPasswords } from "../../shared/url-passwords.js";
import type { SkillDocument } from "../skills/skill-document.js";
import type { JournalEntry } from "../skills/skill-journal.js";
import type { StepRecord } from "./agent/agent-loop.js";
import { BrowserAgent, type TestCache } from "./agent/browser-agent.js";
import type { LessonDraft } from "./agent/runner-lessons.js";
import { BrowserPage } from "./browser/browser-page.js";
import type { BrowserSession, SessionOptions } from "./browser/browser-session.js";
import { PageErrorLog, pageErrorsFailure } from "./browser/page-error-log.js";
import { capturePageErrors } from "./browser/page-errors.js";
import type { Screencast } from "./browser/screencast.js";
import { propagateTraceContext } from "./browser/trace-propagation.js";
import { ActionCache } from "./cache/action-cache.js";
import type { RunSettings } from "./config/run-settings.js";
import { FrameThrottle } from "./frames/frame-throttle.js";
import { FRAME_DIR, startLiveFrames } from "./frames/live-frames.js";
import type { ModelProvider, TokenUsage } from "./providers/model-provider.js";
import type { CheckRecord, FailureEvidence, Reporter, RunReport, TestRef, TestResult } from "./report/run-result.js";
import { captureFailureEvidence, evidenceDir, FAILURE_DIR } from "./run/failure-evidence.js";
import { cacheable, journalEntries } from "./run/redacted-artifacts.js";
import { screenshotHidingSecrets } from "./run/secret-fields.js";
import { settleWithin } from "./run/settle-within.js";
import { runAttempts } from "./run/test-attempts.js";
import { failureOf, slug, TestTimeout } from "./run/test-failure.js";
import { redactStep, redactTestResult } from "./secrets/redact-records.js";
import { SecretValues } from "./secrets/secret-values.js";
import type { LoadedSpec } from "./spec/spec-loading.js";
import type { DeclaredTest } from "./spec/test-registry.js";
import type { AllowedHost } from "./telemetry/propagation-allowlist.js";

export { journalEntries } from "./run/redacted-artifacts.js";

export const SCREENSHOT_DIR = "screenshots";
/** How long a timed-out test's body gets to notice its browser is gone. */
const ABANDON_GRACE_MS = 2_000;
/**
 * How long the end of a run waits for tests it stopped waiting for: a browser still starting
 * when its test timed out is closed (its temporary profile removed) once it has started. A
 * driver answers within 15 s or its start fails, so this bounds a start that hangs past that.
 */
const LINGER_MS = 30_000;

export interface RunDependencies {
  provider: ModelProvider;
  startBrowser: (options: Omit<SessionOptions, "launch" | "urlForBrowser">) => Promise<BrowserSession>;
  reporters: Reporter[];
  /** The skills the agent chooses from (bundled and project overrides). */
  skills?: SkillDocument[];
  /** Where each test's lessons go when it finishes (the project's skills journal). */
  recordLessons?: (entries: JournalEntry[]) => void;
  /** The action cache; none means every instruction asks the model. */
  cache?: ActionCache;
  /** --otel-propagate: where each test's trace context goes; none sends it nowhere. */
  propagation?: TraceContextSource;
}

export interface TraceContextSource {
  /** The allowed hosts, as the browser names them. */
  hosts: readonly AllowedHost[];
  /** The W3C trace context headers of the test's span. */
  headersFor(testId: string): Record<string, string>;
  /** Told when a session's browser cannot carry trace context: no WebDriver BiDi, or the reason it refused. */
  unavailable(reason: string | null): void;
}

function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0 };
}

export async function runSuite(specs: LoadedSpec[], settings: RunSettings, deps: RunDependencies): Promise<RunReport> {
  const started = Date.now();
  const { reporters } = deps;
  const tell = (event: (reporter: Reporter) => void) => {
    for (const reporter of reporters) event(reporter);
  };
  rmSync(join(settings.reportDir, SCREENSHOT_DIR), { recursive: true, force: true });
  rmSync(join(settings.reportDir, FRAME_DIR), { recursive: true, force: true });
  rmSync(join(settings.reportDir, FAILURE_DIR), { recursive: true, force: true });
  const total = specs.reduce((sum, spec) => sum + spec.tests.length, 0);
  tell((reporter) =>
    reporter.onRunStart?.({
      tests: total,
      files: specs.length,
      engine: settings.engine,
      provider: deps.provider.name,
      model: deps.provider.model,
    }),
  );

  const lingering = new Set<Promise<void>>();
  const files = await runFiles(specs, settings, deps, tell, lingering);
  await Promise.race([Promise.all(lingering), new Promise((resolve) => setTimeout(resolve, LINGER_MS).unref())]);

  const all = files.flatMap((entry) => entry.tests);
  const usage = all.reduce(
    (sum, test) => ({
      inputTokens: sum.inputTokens + test.usage.inputTokens,
      outputTokens: sum.outputTokens + test.usage.outputTokens,
    }),
    emptyUsage(),
  );
  const cache = {
    mode: deps.cache?.mode ?? "off",
    hits: all.reduce((sum, test) => sum + test.cache.hits, 0),
    misses: all.reduce((sum, test) => sum + test.cache.misses, 0),
  };
  const report: RunReport = {
    schemaVersion: "obs.report/v1",
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    engine: settings.engine,
    provider: { name: deps.provider.name, model: deps.provider.model },
    baseUrl: settings.baseUrl === null ? null : hideUrlPasswords(settings.baseUrl),
    totals: {
      tests: all.length,
      passed: all.filter((test) => test.status === "passed").length,
      failed: all.filter((test) => test.status === "failed").length,
      skipped: all.filter((test) => test.status === "skipped").length,
      flaky: all.filter((test) => test.flaky).length,
    },
    usage,
    cache,
    files,
  };
  for (const reporter of reporters) await reporter.onRunFinish?.(report);
  return report;
}

/**
 * Runs every test with up to `settings.workers` at once, each in its own browser session.
 * A file's beforeAll hooks run once before its first test starts and its afterAll hooks after
 * its last test ends; results keep declaration order whatever order tests finish in.
 */
async function runFiles(
  specs: LoadedSpec[],
  settings: RunSettings,
  deps: RunDependencies,
  tell: (event: (reporter: Reporter) => void) => void,
  lingering: Set<Promise<void>>,
): Promise<RunReport["files"]> {
  const files = specs.map((spec) => ({
    spec,
    file: relative(settings.cwd, spec.file) || spec.file,
    results: new Array<TestResult>(spec.tests.length),
    /** A failed beforeAll of a file without tests, and a failed afterAll: each its own entry. */
    hooks: [] as TestResult[],
    remaining: spec.tests.length,
    beforeAll: null as Promise<unknown> | null,
  }));
  const jobs = files.flatMap((entry) => entry.spec.tests.map((test, index) => ({ entry, test, index })));

  const runBeforeAll = async (spec: LoadedSpec): Promise<unknown> => {
    try {
      for (const hook of spec.beforeAll) await hook();
      return null;
    } catch (error) {
      return error;
    }
  };
  /**
   * A failed hook that no test's result tells of is reported as an entry of its own, named after
   * the hook, as every reporter shows a test: its reason is printed and counted as a failure, so
   * the exit code says so. A test's result is never changed after it was reported.
   */
  const hookFailed = (entry: (typeof files)[number], hook: "beforeAll" | "afterAll", error: unknown, since: Date) => {
    const ref: TestRef = { id: `${entry.file} > ${hook}`, file: entry.file, name: hook };
    const failure = { kind: "error" as const, message: `${hook}: ${failureOf(error).message}` };
    const durationMs = Date.now() - since.getTime();
    const result: TestResult = {
      ...ref,
      status: "failed",
      startedAt: since.toISOString(),
      durationMs,
      browserStartMs: null,
      failure,
      steps: [],
      checks: [],
      pageErrors: [],
      failureEvidence: null,
      attempts: [{ attempt: 1, status: "failed", durationMs, failure }],
      flaky: false,
      usage: emptyUsage(),
      cache: { hits: 0, misses: 0 },
    };
    tell((reporter) => reporter.onTestStart?.(ref, 1));
    tell((reporter) => reporter.onTestFinish?.(result));
    entry.hooks.push(result);
  };
  const runAfterAll = async (entry: (typeof files)[number]): Promise<void> => {
    const since = new Date();
    try {
      for (const hook of entry.spec.afterAll) await hook();
    } catch (error) {
      hookFailed(entry, "afterAll", error, since);
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { entry, test, index } = jobs[next++] as (typeof jobs)[number];
      entry.beforeAll ??= runBeforeAll(entry.spec);
      const suiteFailure = await entry.beforeAll;
      const ref: TestRef = { id: `${entry.file} > ${test.name}`, file: entry.file, name: test.name };
      entry.results[index] = await runTest({
        spec: entry.spec,
        test,
        ref,
        settings,
        deps,
        tell,
        suiteFailure,
        lingering,
      });
      entry.remaining -= 1;
      if (entry.remaining === 0) await runAfterAll(entry);
    }
  };
  const workers = Math.max(1, Math.min(settings.workers, jobs.length));
  await Promise.all(Array.from({ length: workers }, worker));
  // Files without tests still run their hooks, as they did one at a time.
  for (const entry of files) {
    if (entry.spec.tests.length === 0) {
      entry.results.length = 0;
      const since = new Date();
      const failed = await runBeforeAll(entry.spec);
      if (failed) hookFailed(entry, "beforeAll", failed, since);
      await runAfterAll(entry);
    }
  }
  return files.map((entry) => ({ file: entry.file, tests: [...entry.results, ...entry.hooks] }));
}

/** Runs a test, and reruns it while it fails and retries are left. */
async function runTest(context: AttemptContext): Promise<TestResult> {
  const { test, settings, tell, suiteFailure } = context;
  // A failed beforeAll does not run again, so neither does the test.
  const retries = suiteFailure || test.skip ? 0 : settings.retries;
  const finished = await runAttempts(retries, (attempt) => runAttempt(context, attempt));
  tell((reporter) => reporter.onTestFinish?.(finished));
  return finished;
}

interface AttemptContext {
  spec: LoadedSpec;
  test: DeclaredTest;
  ref: TestRef;
  settings: RunSettings;
  deps: RunDependencies;
  tell: (event: (reporter: Reporter) => void) => void;
  suiteFailure: unknown;
  /** Test bodies still running after their attempt ended (a timeout), for the run to wait for. */
  lingering: Set<Promise<void>>;
}

/**
 * One run of a test in a fresh browser session. Everything it hands on (steps to reporters, its
 * result, journal and cache entries, failure evidence) is redacted by its secrets.
 */
async function runAttempt(context: AttemptContext, attempt: number): Promise<TestResult> {
  const { spec, test, ref, settings, deps, tell, suiteFailure } = context;
  /** The attempt's secrets: the agent learns them (the spec's `secrets`, password fields). */
  const secrets = new SecretValues();
  // Only the browser is given the base URL's password; wherever the page shows it, it is hidden.
  const basePassword = settings.baseUrl && URL.canParse(settings.baseUrl) ? new URL(settings.baseUrl).password : "";
  secrets.hide(basePassword);
  try {
    secrets.hide(decodeURIComponent(basePassword));
  } catch {
    // Not percent-encoded text: hidden as given.
  }
  const startedAt = new Date();
  const steps: StepRecord[] = [];
  const checks: CheckRecord[] = [];
  const lessons: LessonDraft[] = [];
  const pageErrors = new PageErrorLog(secrets, (error) => tell((reporter) => reporter.onPageError?.(ref, error)));
  const usage = emptyUsage();
  const cache: TestCache = {
    store: deps.cache ?? new ActionCache("off"),
    engine: settings.engine,
    testId: ref.id,
    drafts: [],
    stats: { hits: 0, misses: 0 },
  };
  const result = (
    status: TestResult["status"],
    failure: TestResult["failure"],
    browserStartMs: number | null,
  ): TestResult => {
    const durationMs = Date.now() - startedAt.getTime();
    return {
      ...ref,
      status,
      startedAt: startedAt.toISOString(),
      durationMs,
      browserStartMs,
      failure,
      steps,
      checks,
      pageErrors: pageErrors.errors,
      pageErrorsOmitted: pageErrors.omitted,
      failureEvidence: null,
      attempts: status === "skipped" ? [] : [{ attempt, status, durationMs, failure }],
      flaky: false,
      usage,
      cache: cache.stats,
    };
  };
  tell((reporter) => reporter.onTestStart?.(ref, attempt));
  if (test.skip) return result("skipped", null, null);
  if (suiteFailure) {
    return result("failed", { kind: "error", message: `beforeAll: ${failureOf(suiteFailure).message}` }, null);
  }

  const timeoutMs = test.options.timeout ?? settings.timeoutMs;
  const deadline = startedAt.getTime() + timeoutMs;
  let session: BrowserSession | null = null;
  let page: BrowserPage | null = null;
  let browserStartMs: number | null = null;
  let failure: TestResult["failure"] = null;
  let failureEvidence: FailureEvidence | null = null;
  let screencast: Screencast | null = null;
  let stopPageErrors = async () => {};
  let abandoned = false;
  let startingBrowser = false;
  const screenshotDir = join(settings.reportDir, SCREENSHOT_DIR, slug(ref.file), slug(test.name));
  // A retry's step screenshots replace the failed attempt's.
  if (attempt > 1) rmSync(screenshotDir, { recursive: true, force: true });
  const frames = new FrameThrottle(settings.frameIntervalMs);
  const tellFrame = (path: string) => tell((reporter) => reporter.onFrame?.(ref, path));

  const body = async () => {
    const browserStarted = Date.now();
    startingBrowser = true;
    const started = await deps.startBrowser({ headed: settings.headed, viewport: settings.viewport }).finally(() => {
      startingBrowser = false;
    });
    if (abandoned) {
      // The test timed out while the browser was starting: nobody else will close it.
      await started.close();
      return;
    }
    session = started;
    browserStartMs = Date.now() - browserStarted;
    if (deps.propagation) {
      const { hosts, headersFor, unavailable } = deps.propagation;
      // Before the first navigation, so that the page itself arrives as part of the trace.
      const propagating = await propagateTraceContext(session.browser, hosts, headersFor(ref.id)).catch(
        (error: Error) => error,
      );
      if (propagating !== true) unavailable(propagating instanceof Error ? propagating.message : null);
    }
    // Before the first navigation, so that errors while the page loads are caught too.
    stopPageErrors = await capturePageErrors(session.browser, pageErrors, settings);
    const browserPage = new BrowserPage(session.browser, settings.baseUrl, session.keys, session.urlForBrowser);
    page = browserPage;
    const debuggerAddress = settings.captureScreenshots && settings.stream ? session.debuggerAddress : null;
    if (debuggerAddress) {
      // No screencast (an engine without one, a refused connection) is no reason to fail the test.
      screencast = await startLiveFrames({
        debuggerAddress,
        dir: join(settings.reportDir, FRAME_DIR, slug(ref.file), slug(test.name)),
        reportDir: settings.reportDir,
        throttle: frames,
        viewport: settings.viewport,
        onFrame: tellFrame,
      }).catch((error: Error) => {
        process.stderr.write(`obs: no live frames for ${ref.id} (${error.message}); using per-action screenshots\n`);
        return null;
      });
    }
    const live = screencast !== null;
    const onStep = async (step: StepRecord) => {
      step.index = steps.length + 1;
      if (settings.captureScreenshots && step.tool !== "done" && step.tool !== "fail") {
        mkdirSync(screenshotDir, { recursive: true });
        const path = join(screenshotDir, `step-${String(step.index).padStart(3, "0")}.png`);
        await screenshotHidingSecrets(browserPage, path, secrets);
        step.screenshot = relative(settings.reportDir, path);
      }
      steps.push(step);
      tell((reporter) => reporter.onStep?.(ref, redactStep(step, secrets)));
      // Without the live screencast, the per-action screenshots are the frames.
      if (!live && step.screenshot && frames.admit(Date.now())) tellFrame(step.screenshot);
    };
    const agent = new BrowserAgent(
      browserPage,
      {
        test: test.name,
        provider: deps.provider,
        budget: { used: 0, max: settings.maxSteps },
        deadline,
        usage,
        onStep,
        skills: deps.skills,
        onLesson: deps.recordLessons ? (lesson) => lessons.push(lesson) : undefined,
        vision: settings.vision,
      },
      checks,
      cache,
      secrets,
    );
    try {
      for (const hook of spec.beforeEach) await hook({ agent });
      await test.body({ agent });
    } finally {
      for (const hook of spec.afterEach) await hook({ agent });
    }
  };

  let timer: NodeJS.Timeout | undefined;
  const running = body();
  try {
    await Promise.race([
      running,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new TestTimeout(`timed out after ${timeoutMs} ms`)),
          Math.max(deadline - Date.now(), 0),
        );
      }),
    ]);
  } catch (error) {
    failure = failureOf(error);
  } finally {
    clearTimeout(timer);
    abandoned = true;
    await settleWithin((screencast as Screencast | null)?.stop());
    await settleWithin(stopPageErrors());
    // Known before the evidence is taken, so that a test failed by its page errors has evidence too.
    failure ??= pageErrorsFailure(pageErrors, settings.failOnPageErrors);
    const open = session as BrowserSession | null;
    // Before the browser closes: what the page looked like when the test failed.
    const shown = page as BrowserPage | null;
    if (failure && open && shown) {
      const dir = evidenceDir(settings.reportDir, slug(ref.file), slug(test.name), attempt);
      failureEvidence = await captureFailureEvidence(shown, dir, settings.reportDir, secrets);
    }
    await open?.close();
    // A timed-out body is still running; its browser is gone, so it ends soon. Wait a little, never
    // forever. One still starting its browser closes it once started (removing its profile
    // folder), and returns: the run waits for that before it ends.
    const ended = running.then(
      () => {},
      () => {},
    );
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, ABANDON_GRACE_MS))]);
    if (startingBrowser) {
      context.lingering.add(ended);
      void ended.then(() => context.lingering.delete(ended));
    }
  }
  const finished = { ...result(failure ? "failed" : "passed", failure, browserStartMs), failureEvidence };
  // Only a passing attempt's actions are worth replaying; a hit that passed again is kept as it was.
  if (finished.status === "passed") for (const entry of cacheable(cache.drafts, secrets)) cache.store.put(entry);
  deps.recordLessons?.(journalEntries(lessons, ref, finished.status === "passed", new Date(), secrets));
  return redactTestResult(finished, secrets);
}
