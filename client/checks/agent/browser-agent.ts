/** The `agent` a test receives: goto, act and check over one browser page. */

import { type ActionCache, type CachedAction, type CacheEntry, instructionKey } from "../cache/action-cache.js";
import { replayEntry } from "../cache/replay.js";
import type { CacheStats, CheckRecord } from "../report/run-result.js";
import { SecretValues } from "../secrets/secret-values.js";
import type { ActResult, Agent, CheckOptions, CheckResult } from "../spec/agent-api.js";
import {
  type InstructionKind,
  type InstructionOutcome,
  type LoopContext,
  runInstruction,
  type StepRecord,
} from "./agent-loop.js";

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
    await this.loop.onStep(step);
  }

  /** Replays the cached actions when they still fit the page, else asks the model (and drafts a new entry). */
  private async instruction(kind: InstructionKind, instruction: string): Promise<InstructionOutcome> {
    const context = { ...this.loop, page: this.page };
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
        cache.drafts.push(entry);
        return replayed.outcome;
      }
      actions.push(...replayed.performed);
    }
    cache.stats.misses += 1;
    const outcome = await runInstruction(kind, instruction, { ...context, onAction: (action) => actions.push(action) });
    if (outcome.finished === "done") {
      cache.drafts.push({
        key,
        test: cache.testId,
        kind,
        instruction,
        actions,
        finalFingerprint: kind === "check" ? outcome.fingerprint : null,
        result: outcome.text,
        recordedAt: new Date().toISOString(),
      });
    }
    return outcome;
  }

  async act(instruction: string): Promise<ActResult> {
    const outcome = await this.instruction("act", instruction);
    if (outcome.finished === "fail") {
      throw new InstructionFailed("act_failed", `could not ${JSON.stringify(instruction)}: ${outcome.text}`);
    }
    return { ok: true, summary: outcome.text, steps: outcome.steps };
  }

  async check(assertion: string, options: CheckOptions = {}): Promise<CheckResult> {
    const outcome = await this.instruction("check", assertion);
    const passed = outcome.finished === "done";
    const soft = options.soft === true;
    this.checks.push({ assertion, passed, evidence: outcome.text, soft, quote: null, refused: 0 });
    if (!passed && !soft) {
      throw new InstructionFailed("check_failed", `check failed: ${JSON.stringify(assertion)}: ${outcome.text}`);
    }
    return { passed, evidence: outcome.text, quote: null };
  }
}
