/** The `agent` a test receives: goto, act and check over one browser page. */

import type { CheckRecord } from "../report/run-result.js";
import type { ActResult, Agent, CheckOptions, CheckResult } from "../spec/agent-api.js";
import { type LoopContext, runInstruction, type StepRecord } from "./agent-loop.js";

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

export class BrowserAgent implements Agent {
  constructor(
    private readonly page: AgentPageWithNavigation,
    private readonly loop: Omit<LoopContext, "page">,
    private readonly checks: CheckRecord[],
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

  async act(instruction: string): Promise<ActResult> {
    const outcome = await runInstruction("act", instruction, { ...this.loop, page: this.page });
    if (outcome.finished === "fail") {
      throw new InstructionFailed("act_failed", `could not ${JSON.stringify(instruction)}: ${outcome.text}`);
    }
    return { summary: outcome.text, steps: outcome.steps };
  }

  async check(assertion: string, options: CheckOptions = {}): Promise<CheckResult> {
    const outcome = await runInstruction("check", assertion, { ...this.loop, page: this.page });
    const passed = outcome.finished === "done";
    const soft = options.soft === true;
    this.checks.push({ assertion, passed, evidence: outcome.text, soft });
    if (!passed && !soft) {
      throw new InstructionFailed("check_failed", `check failed: ${JSON.stringify(assertion)}: ${outcome.text}`);
    }
    return { passed, evidence: outcome.text };
  }
}
