/** The `agent` a test receives: goto, act and check over one browser page. */

import { type ActionCache, type CachedAction, type CacheEntry, instructionKey } from "../cache/action-cache.js";
import { replayEntry } from "../cache/replay.js";
import type { CacheStats, CheckRecord } from "../report/run-result.js";
import { redactCacheEntry, redactCheck, redactLesson, redactStep } from "../secrets/redact-records.js";
import { SecretValues } from "../secrets/secret-values.js";
import type { ActOptions, ActResult, Agent, CheckOptions, CheckResult } from "../spec/agent-api.js";
import {
  AgentStopped,
  type InstructionKind,
  type InstructionOutcome,
  type LoopContext,
  runInstruction,
  type StepRecord,
} from "./agent-loop.js";
import type { LessonDraft } from "./runner-lessons.js";
import { HandedOut, recordRedacted } from "./step-secrets.js";

/** The test fails: the model judged a check false, or gave up on an instruction. */
export class InstructionFailed extends Error {
  override name = "InstructionFailed";
  constructor(
    readonly kind: "check_failed" | "act_failed",
    message: string,
  ) {
    super(message);
  }
}

export interface AgentPageWithNavigation {
  goto(url: string): Promise<string>;
  snapshot: LoopContext["page"]["snapshot"];
  perform: LoopContext["page"]["perform"];
  // biome-ignore lint/suspicious/noExplicitAny: the raw webdriverio browser, handed to specs as is
  browser: any;
}

/** One test's use of the action cache: what it looks up, and the entries it would record if it passes. */
export interface TestCache {
  store: ActionCache;
  engine: string;
  testId: string;
  /** Entries of this run's finished instructions; the runner stores them only when the test passes. */
  drafts: CacheEntry[];
  stats: CacheStats;
}

export class BrowserAgent implements Agent {
  private readonly ordinals = new Map<string, number>();
  private readonly handedOut = new HandedOut();

  constructor(
    private readonly page: AgentPageWithNavigation,
    private readonly loop: Omit<LoopContext, "page">,
    private readonly checks: CheckRecord[],
    private readonly cache: TestCache | null = null,
    /** The test's secrets: `act`/`check` options add to them; the runner redacts artifacts by them. */
    readonly secrets: SecretValues = new SecretValues(),
  ) {}

  get browser() {
    return this.page.browser;
  }

  async goto(url: string): Promise<void> {
    const started = Date.now();
    const target = await this.page.goto(url);
    const step: StepRecord = {
      index: 0,
      kind: "goto",
      instruction: url,
      tool: "navigate",
      args: { url },
      target: null,
      text: null,
      evidence: `opened ${target}`,
      ok: true,
      url: target,
      pageChanged: true,
      durationMs: Date.now() - started,
      modelMs: 0,
      screenshot: null,
    };
    await recordRedacted(step, this.secrets, this.keptStep);
  }

  private readonly keptStep = (step: StepRecord) => this.loop.onStep(this.handedOut.keep(step, redactStep));

  /** Runs one instruction; what leaves it (its outcome, a stop's message) is redacted. */
  private async instruction(kind: InstructionKind, instruction: string): Promise<InstructionOutcome> {
    try {
      const outcome = await this.resolve(kind, instruction);
      return { ...outcome, text: this.secrets.redact(outcome.text) };
    } catch (error) {
      if (error instanceof AgentStopped) throw new AgentStopped(error.reason, this.secrets.redact(error.message));
      throw error;
    } finally {
      this.handedOut.redactAll(this.secrets);
    }
  }

  /** Replays the cached actions when they still fit the page, else asks the model (and drafts a new entry). */
  private async resolve(kind: InstructionKind, instruction: string): Promise<InstructionOutcome> {
    const onLesson = this.loop.onLesson;
    const context = {
      ...this.loop,
      page: this.page,
      secrets: this.secrets,
      onStep: this.keptStep,
      onLesson: onLesson && ((lesson: LessonDraft) => onLesson(this.handedOut.keep(lesson, redactLesson))),
    };
    const cache = this.cache;
    if (!cache || cache.store.mode === "off") return runInstruction(kind, instruction, context);
    const seen = `${kind}\n${instruction}`;
    const ordinal = this.ordinals.get(seen) ?? 0;
    this.ordinals.set(seen, ordinal + 1);
    const key = instructionKey(cache.engine, cache.testId, kind, instruction, ordinal);
    const actions: CachedAction[] = [];
    const entry = cache.store.get(key);
    if (entry) {
      const replayed = await replayEntry(entry, kind, instruction, context);
      if (replayed.hit) {
        cache.stats.hits += 1;
        // An entry that typed a password no spec named is not written back (the same rule as below).
        if (!replayed.outcome.typedUnnamedSecret) cache.drafts.push(entry);
        return replayed.outcome;
      }
      actions.push(...replayed.performed);
    }
    cache.stats.misses += 1;
    const outcome = await runInstruction(kind, instruction, { ...context, onAction: (action) => actions.push(action) });
    // A password no spec named would be stored as %typed_secret%, which no later run can type: not cached.
    if (outcome.finished === "done" && !outcome.typedUnnamedSecret) {
      cache.drafts.push(
        // The file may be committed: every known secret's value is stored as its placeholder.
        this.handedOut.keep(
          redactCacheEntry(
            {
              key,
              test: cache.testId,
              kind,
              instruction,
              actions,
              finalFingerprint: kind === "check" ? outcome.fingerprint : null,
              result: outcome.text,
              quote: outcome.quote,
              recordedAt: new Date().toISOString(),
            },
            this.secrets,
          ),
          redactCacheEntry,
        ),
      );
    }
    return outcome;
  }

  /**
   * Fails the test when the instruction could not be carried out (the model called fail, or
   * insisted on done after a failed action), unless `optional`: then `ok` is false.
   */
  async act(instruction: string, options: ActOptions = {}): Promise<ActResult> {
    this.secrets.add(options.secrets);
    const outcome = await this.instruction("act", instruction);
    if (outcome.finished === "fail") {
      if (options.optional === true) return { ok: false, summary: outcome.text, steps: outcome.steps };
      const message = `could not ${JSON.stringify(instruction)}: ${outcome.text}`;
      throw new InstructionFailed("act_failed", this.secrets.redact(message));
    }
    return { ok: true, summary: outcome.text, steps: outcome.steps };
  }

  async check(assertion: string, options: CheckOptions = {}): Promise<CheckResult> {
    this.secrets.add(options.secrets);
    const outcome = await this.instruction("check", assertion);
    const passed = outcome.finished === "done";
    const soft = options.soft === true;
    const quote = passed ? outcome.quote : null;
    this.checks.push(
      this.handedOut.keep(
        redactCheck({ assertion, passed, evidence: outcome.text, soft, quote, refused: outcome.refused }, this.secrets),
        redactCheck,
      ),
    );
    if (!passed && !soft) {
      const message = `check failed: ${JSON.stringify(assertion)}: ${outcome.text}`;
      throw new InstructionFailed("check_failed", this.secrets.redact(message));
    }
    return { passed, evidence: outcome.text, quote };
  }
}
