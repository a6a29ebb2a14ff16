/**
 * Replays a cached instruction without the model: each action on the element that looks like
 * the one recorded. It misses, and the caller asks the model from the page as it now is, when an
 * element is gone, an action fails, or (for a check) the page is not the one the model judged.
 *
 * A replayed check's verdict is held to the rule the model's is (finish-rules.ts): its recorded
 * quote must be on the page as it is now, or the replay misses and the model judges afresh. An
 * entry without a quote (written before verdicts were grounded) always misses for a check.
 */
import {
  ensureStepLeft,
  type InstructionKind,
  type InstructionOutcome,
  type LoopContext,
  type StepRecord,
  type StepTarget,
} from "../agent/agent-loop.js";
import { groundingText, quoteRefusal } from "../agent/finish-rules.js";
import { fingerprintOf, nameOf, roleOf } from "../agent/page-snapshot.js";
import type { RawElement } from "../agent/snapshot-script.js";
import { isPasswordField, learnPassword, recordRedacted, revealArgs } from "../agent/step-secrets.js";
import { SecretValues } from "../secrets/secret-values.js";
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
  context: Pick<LoopContext, "page" | "budget" | "onStep" | "secrets">,
): Promise<ReplayResult> {
  const secrets = context.secrets ?? new SecretValues();
  const performed: CachedAction[] = [];
  let typedUnnamedSecret = false;
  let snapshot = await context.page.snapshot();
  const step = async (
    tool: string,
    args: Record<string, unknown>,
    target: StepTarget | null,
    evidence: string,
    started: number,
  ) => {
    const before = fingerprintOf(snapshot);
    if (tool !== "done") snapshot = await context.page.snapshot();
    context.budget.used += 1;
    const record: StepRecord = {
      index: context.budget.used,
      kind,
      instruction,
      tool,
      args,
      target,
      text: REPLAYED,
      evidence,
      ok: true,
      url: snapshot.url,
      pageChanged: fingerprintOf(snapshot) !== before,
      durationMs: Date.now() - started,
      modelMs: 0,
      screenshot: null,
    };
    await recordRedacted(record, secrets, context.onStep);
  };
  for (const action of entry.actions) {
    // Replayed steps count as the model's would: the cap fails a test the same way either way.
    ensureStepLeft(context.budget, instruction);
    const started = Date.now();
    const args = { ...action.args };
    let target: StepTarget | null = null;
    let element: RawElement | undefined;
    if (action.target) {
      const index = findTarget(action.target, snapshot.elements);
      element = snapshot.elements.find((candidate) => candidate.index === index);
      if (index === null || !element) {
        const { tag, label } = action.target;
        return { hit: false, reason: `${tag} ${JSON.stringify(label)} is no longer on the page`, performed };
      }
      args.index = index;
      target = { index, role: roleOf(element), label: element.label };
    }
    // The entry holds placeholders (browser-agent.ts stores it redacted); the browser gets the values.
    const revealed = revealArgs(action.tool, args, secrets);
    // Learned as the loop learns it, before anything is recorded: an entry written before obs
    // learned typed passwords may hold one in plain text.
    if (action.tool === "type" && isPasswordField(element)) {
      typedUnnamedSecret = learnPassword(String(revealed.text), secrets) || typedUnnamedSecret;
    }
    let evidence: string;
    try {
      evidence = await context.page.perform(action.tool, revealed, target ? nameOf(target) : null);
    } catch (error) {
      return { hit: false, reason: `${action.tool} failed: ${(error as Error).message}`, performed };
    }
    performed.push(action);
    await step(action.tool, args, target, secrets.redact(evidence), started);
  }
  const fingerprint = fingerprintOf(snapshot);
  if (entry.finalFingerprint !== null && fingerprint !== entry.finalFingerprint) {
    return { hit: false, reason: "the page differs from the one the check was judged on", performed };
  }
  const quote = entry.quote ?? null;
  if (kind === "check") {
    if (quote === null) return { hit: false, reason: "the cached verdict has no quote", performed };
    snapshot = await context.page.snapshot();
    if (quoteRefusal(quote, secrets.redact(await groundingText(context.page, snapshot))) !== null) {
      return { hit: false, reason: `the cached quote ${JSON.stringify(quote)} is not on the page`, performed };
    }
  }
  ensureStepLeft(context.budget, instruction);
  const doneArgs = kind === "check" ? { quote, evidence: entry.result } : { evidence: entry.result };
  await step("done", doneArgs, null, entry.result, Date.now());
  return {
    hit: true,
    outcome: {
      finished: "done",
      text: entry.result,
      steps: entry.actions.length + 1,
      fingerprint,
      quote: kind === "check" ? quote : null,
      refused: 0,
      typedUnnamedSecret,
    },
  };
}
