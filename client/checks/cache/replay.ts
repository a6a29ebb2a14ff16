/**
 * Replays a cached instruction without the model: each action on the element that looks like
 * the one recorded. It misses, and the caller asks the model from the page as it now is, when an
 * element is gone, an action fails, or (for a check) the page is not the one the model judged.
 */
import {
  ensureStepLeft,
  type InstructionKind,
  type InstructionOutcome,
  type LoopContext,
  type StepRecord,
} from "../agent/agent-loop.js";
import { fingerprintOf } from "../agent/page-snapshot.js";
import { type CachedAction, type CacheEntry, findTarget } from "./action-cache.js";

export const REPLAYED = "(replayed from the action cache)";

export type ReplayResult =
  | { hit: true; outcome: InstructionOutcome }
  /** `performed`: the actions done before the miss; they belong to the run's new entry. */
  | { hit: false; reason: string; performed: CachedAction[] };

export async function replayEntry(
  entry: CacheEntry,
  kind: InstructionKind,
  instruction: string,
  context: Pick<LoopContext, "page" | "budget" | "onStep">,
): Promise<ReplayResult> {
  const performed: CachedAction[] = [];
  let snapshot = await context.page.snapshot();
  const step = async (tool: string, args: Record<string, unknown>, evidence: string, started: number) => {
    const before = fingerprintOf(snapshot);
    if (tool !== "done") snapshot = await context.page.snapshot();
    context.budget.used += 1;
    const record: StepRecord = {
      index: context.budget.used,
      kind,
      instruction,
      tool,
      args,
      target: null,
      text: REPLAYED,
      evidence,
      ok: true,
      url: snapshot.url,
      pageChanged: fingerprintOf(snapshot) !== before,
      durationMs: Date.now() - started,
      modelMs: 0,
      screenshot: null,
    };
    await context.onStep(record);
  };
  for (const action of entry.actions) {
    // Replayed steps count as the model's would: the cap fails a test the same way either way.
    ensureStepLeft(context.budget, instruction);
    const started = Date.now();
    const args = { ...action.args };
    if (action.target) {
      const index = findTarget(action.target, snapshot.elements);
      if (index === null) {
        const { tag, label } = action.target;
        return { hit: false, reason: `${tag} ${JSON.stringify(label)} is no longer on the page`, performed };
      }
      args.index = index;
    }
    let evidence: string;
    try {
      evidence = await context.page.perform(action.tool, args);
    } catch (error) {
      return { hit: false, reason: `${action.tool} failed: ${(error as Error).message}`, performed };
    }
    performed.push(action);
    await step(action.tool, args, evidence, started);
  }
  const fingerprint = fingerprintOf(snapshot);
  if (entry.finalFingerprint !== null && fingerprint !== entry.finalFingerprint) {
    return { hit: false, reason: "the page differs from the one the check was judged on", performed };
  }
  ensureStepLeft(context.budget, instruction);
  await step("done", { evidence: entry.result }, entry.result, Date.now());
  return {
    hit: true,
    outcome: { finished: "done", text: entry.result, steps: entry.actions.length + 1, fingerprint },
  };
}
