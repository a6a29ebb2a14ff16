/**
 * The agent loop: show the model the page, run the one tool it calls, repeat until it calls
 * done or fail, the step cap is reached, the test's time runs out, or the stall guard sees
 * the same action leave the page unchanged again and again.
 */

import type { SkillDocument } from "../../skills/skill-document.js";
import { MAX_LESSON_LENGTH } from "../../skills/skill-journal.js";
import { selectSkills } from "../../skills/skill-selection.js";
import { type CachedAction, cachedAction } from "../cache/action-cache.js";
import type {
  ModelImage,
  ModelMessage,
  ModelProvider,
  ModelResponse,
  TokenUsage,
} from "../providers/model-provider.js";
import { redactLesson, redactMessages } from "../secrets/redact-records.js";
import { SecretValues } from "../secrets/secret-values.js";
import {
  ACT_TOOLS,
  argumentProblem,
  CHECK_TOOLS,
  isToolName,
  LESSON_TOOL,
  type ToolName,
  toolDefinition,
} from "./agent-tools.js";
import { conversation, type PastStep } from "./conversation.js";
import { type ActionOutcome, actDoneRefusal, groundingText, quoteRefusal } from "./finish-rules.js";
import { elementRefs, fingerprintOf, formatSnapshot, nameOf, roleOf } from "./page-snapshot.js";
import { actSystemPrompt, checkSystemPrompt } from "./prompts.js";
import {
  describeAction,
  type LessonDraft,
  type ObservedAction,
  resolvedAfterRetries,
  stallLesson,
} from "./runner-lessons.js";
import type { RawElement, RawSnapshot } from "./snapshot-script.js";
import { actionKey, StallGuard } from "./stall-guard.js";
import { isPasswordField, learnPassword, recordRedacted, revealArgs } from "./step-secrets.js";

/** What the loop needs from the browser; BrowserPage implements it over webdriverio. */
export interface AgentPage {
  snapshot(): Promise<RawSnapshot>;
  /**
   * Performs an action tool and describes what happened, naming the element by `element`
   * (`button "Checkout"`) when given; throws ActionError when it cannot.
   */
  perform(tool: string, args: Record<string, unknown>, element?: string | null): Promise<string>;
  /** The page as a base64 PNG, for --vision; a page without it sends no screenshot. */
  screenshotData?(): Promise<string>;
  /** The page's whole visible text (the snapshot's is cut), for grounding a check's quote; else the snapshot's. */
  fullText?(): Promise<string>;
}

export type InstructionKind = "act" | "check";

/** The element a step aimed at: its number in that snapshot, its role (page-snapshot.ts roleOf) and label. */
export interface StepTarget {
  index: number;
  role: string;
  label: string;
}

/** A step is a model tool call (act, check) or a navigation the spec asked for (goto). */
export type StepKind = InstructionKind | "goto";

export interface StepRecord {
  /** 1-based, counted over the whole test. */
  index: number;
  kind: StepKind;
  instruction: string;
  tool: string;
  args: Record<string, unknown>;
  /** The element the action was aimed at, as the snapshot named it; null for calls without one. */
  target: StepTarget | null;
  /** What the model said with the call, if anything. */
  text: string | null;
  evidence: string;
  /** False when the action failed or the call was refused. */
  ok: boolean;
  url: string;
  pageChanged: boolean;
  durationMs: number;
  modelMs: number;
  screenshot: string | null;
}

/** Why the loop stopped without an answer from the model. */
export type StopReason = "max_steps" | "stall" | "timeout";

export class AgentStopped extends Error {
  override name = "AgentStopped";
  constructor(
    readonly reason: StopReason,
    message: string,
  ) {
    super(message);
  }
}

/** Throws when the run's --max-steps cap leaves no step for `instruction`. Model and replay alike. */
export function ensureStepLeft(budget: StepBudget, instruction: string): void {
  if (budget.max !== null && budget.used >= budget.max) {
    throw new AgentStopped(
      "max_steps",
      `stopped at the --max-steps cap of ${budget.max} steps before "${instruction}" was finished`,
    );
  }
}

export interface StepBudget {
  used: number;
  max: number | null;
}

export interface LoopContext {
  test: string;
  provider: ModelProvider;
  page: AgentPage;
  budget: StepBudget;
  /** Epoch milliseconds after which no new step starts. */
  deadline: number;
  usage: TokenUsage;
  /** Called after each step, before the next model turn (reporting, screenshots). */
  onStep: (step: StepRecord) => Promise<void>;
  /** The skills to choose from for each instruction (skill-selection.ts); none when absent. */
  skills?: SkillDocument[];
  /** Receives lessons for the skills journal; without it the model is not offered record_lesson. */
  onLesson?: (lesson: LessonDraft) => void;
  /** The test's secrets: revealed only to the browser, redacted from all the loop sends or records. */
  secrets?: SecretValues;
  /** Told of each action that succeeded, as the action cache records it. */
  onAction?: (action: CachedAction) => void;
  /** --vision: a screenshot goes with the newest snapshot. */
  vision?: boolean;
  now?: () => number;
}

export interface InstructionOutcome {
  finished: "done" | "fail";
  /** The model's evidence (done) or reason (fail), or why the runner refused its done. */
  text: string;
  steps: number;
  /** The fingerprint of the page the model finished on. */
  fingerprint: string;
  /** A check's accepted quote, found on the page; null otherwise. */
  quote: string | null;
  /** How many of the model's `done` calls were refused (finish-rules.ts). */
  refused: number;
  /** A password the agent typed is no named secret: its actions must not be cached (browser-agent.ts). */
  typedUnnamedSecret: boolean;
}

/** The element a call's `index` names in the snapshot, as steps record it; null for calls without one. */
function targetOf(snapshot: RawSnapshot, index: unknown): { element: RawElement; target: StepTarget } | null {
  const element = snapshot.elements.find((candidate) => candidate.index === index);
  return element ? { element, target: { index: element.index, role: roleOf(element), label: element.label } } : null;
}

/** The screenshot to send with the newest snapshot, under --vision. */
async function visionImage(context: LoopContext): Promise<ModelImage | undefined> {
  if (!context.vision || !context.page.screenshotData) return undefined;
  return { mediaType: "image/png", data: await context.page.screenshotData() };
}

/**
 * The last message carries the newest snapshot; only it gets the screenshot, so requests do not
 * grow with each step. Attached after redaction: the image is pixels, not text to redact.
 */
function withImage(messages: ModelMessage[], image: ModelImage | undefined): ModelMessage[] {
  if (image) (messages.at(-1) as Extract<ModelMessage, { role: "user" | "tool" }>).image = image;
  return messages;
}

export async function runInstruction(
  kind: InstructionKind,
  instruction: string,
  context: LoopContext,
): Promise<InstructionOutcome> {
  const now = context.now ?? Date.now;
  const secrets = context.secrets ?? new SecretValues();
  const allowed: ToolName[] = [
    ...(kind === "act" ? ACT_TOOLS : CHECK_TOOLS),
    ...(context.onLesson ? [LESSON_TOOL] : []),
  ];
  const tools = allowed.map((name) => toolDefinition(kind, name));
  const guard = new StallGuard();
  const past: PastStep[] = [];
  let snapshot = await context.page.snapshot();
  // Chosen once per instruction, from its first page, so the prompt stays the same while it runs.
  const skills = selectSkills(context.skills ?? [], {
    kind,
    instruction,
    labels: snapshot.elements.map((element) => element.label),
  }).map((selected) => selected.skill);
  const system = kind === "act" ? actSystemPrompt(skills) : checkSystemPrompt(skills);
  // A lesson belongs to the skill the model named, else to the first skill chosen for the instruction.
  const lesson = (draft: Omit<LessonDraft, "instruction" | "source" | "skill"> & Partial<LessonDraft>) =>
    context.onLesson?.(
      redactLesson(
        {
          ...draft,
          instruction,
          source: draft.source ?? "runner",
          skill: draft.skill ?? (skills[0]?.frontMatter.name as string | undefined) ?? null,
        },
        secrets,
      ),
    );
  const observed: ObservedAction[] = [];
  const actions: ActionOutcome[] = [];
  let fingerprint = fingerprintOf(snapshot);
  let steps = 0;
  let refused = 0;
  let typedUnnamedSecret = false;

  for (;;) {
    const { budget } = context;
    ensureStepLeft(budget, instruction);
    if (now() >= context.deadline) throw new AgentStopped("timeout", `the test's time ran out during "${instruction}"`);

    const image = await visionImage(context);
    const started = now();
    // The model sees placeholders, never a secret's value, even when the page shows one.
    const response: ModelResponse = await context.provider.complete({
      system,
      // Redacted whole on every turn: a password typed later in the instruction is hidden in earlier turns too.
      messages: withImage(
        redactMessages(conversation(kind, instruction, formatSnapshot(snapshot), past), secrets),
        image,
      ),
      tools,
      context: {
        test: context.test,
        instruction: secrets.redact(instruction),
        elements: elementRefs(snapshot).map((ref) => ({ ...ref, label: secrets.redact(ref.label) })),
      },
    });
    const modelMs = now() - started;
    context.usage.inputTokens += response.usage.inputTokens;
    context.usage.outputTokens += response.usage.outputTokens;
    budget.used += 1;
    steps += 1;

    const call = response.toolCalls[0] ?? {
      id: `missing-${budget.used}`,
      name: "",
      arguments: {},
    };
    const tool = call.name;
    let evidence: string;
    let ok = true;
    let finished: "done" | "fail" | null = null;
    let quote: string | null = null;
    let target: StepTarget | null = null;
    /** This step's browser action in words, for the runner's lessons; null for other calls. */
    let action: string | null = null;
    let agentLesson: (Pick<LessonDraft, "lesson" | "source" | "kind"> & { skill?: string }) | null = null;
    if (!tool) {
      ok = false;
      evidence = "no tool was called; call exactly one of the tools";
    } else if (!isToolName(tool) || !allowed.includes(tool)) {
      ok = false;
      evidence = `"${tool}" is not available here; use one of: ${allowed.join(", ")}`;
    } else {
      const problem = argumentProblem(tool, call.arguments, kind);
      if (problem) {
        ok = false;
        evidence = problem;
      } else if (tool === "fail") {
        finished = tool;
        evidence = String(call.arguments.reason);
      } else if (tool === "done") {
        // A check's quote is looked for in the page as it is now, not as the model last saw it.
        if (kind === "check") snapshot = await context.page.snapshot();
        const refusal =
          kind === "act"
            ? actDoneRefusal(actions)
            : quoteRefusal(call.arguments.quote, secrets.redact(await groundingText(context.page, snapshot)));
        if (refusal === null) {
          finished = "done";
          evidence = String(call.arguments.evidence ?? call.arguments.quote);
          if (kind === "check") quote = String(call.arguments.quote);
        } else {
          ok = false;
          refused += 1;
          // Refused once, the model may look again; insisting ends the instruction as failed.
          if (refused > 1) finished = "fail";
          evidence = refused > 1 ? refusal.failure : refusal.refusal;
        }
      } else if (tool === LESSON_TOOL) {
        const named = typeof call.arguments.skill === "string" ? call.arguments.skill : null;
        agentLesson = {
          lesson: String(call.arguments.lesson).trim().slice(0, MAX_LESSON_LENGTH),
          source: "agent",
          kind: "lesson",
          skill: named && skills.some((skill) => skill.frontMatter.name === named) ? named : undefined,
        };
        evidence = "lesson recorded";
      } else {
        action = describeAction(tool, call.arguments, snapshot.elements);
        const aimed = call.arguments.index === undefined ? null : targetOf(snapshot, call.arguments.index);
        target = aimed?.target ?? null;
        const revealed = revealArgs(tool, call.arguments, secrets);
        // Learned before anything is recorded or told to the model, whether the typing works or not.
        if (tool === "type" && isPasswordField(aimed?.element)) {
          typedUnnamedSecret = learnPassword(String(revealed.text), secrets) || typedUnnamedSecret;
        }
        try {
          evidence = await context.page.perform(tool, revealed, target ? nameOf(target) : null);
          const recorded = context.onAction ? cachedAction(tool, call.arguments, snapshot.elements) : null;
          if (recorded) context.onAction?.(recorded);
        } catch (error) {
          ok = false;
          evidence = (error as Error).message;
        }
        evidence = secrets.redact(evidence);
        observed.push({ action, ok });
        actions.push({ action, ok, evidence });
      }
    }

    let pageChanged = false;
    if (finished === null) {
      snapshot = await context.page.snapshot();
      const next = fingerprintOf(snapshot);
      pageChanged = next !== fingerprint;
      fingerprint = next;
    }
    const step: StepRecord = {
      index: budget.used,
      kind,
      instruction,
      tool: tool || "(none)",
      args: call.arguments,
      target,
      text: response.text,
      evidence,
      ok,
      url: snapshot.url,
      pageChanged,
      durationMs: now() - started,
      modelMs,
      screenshot: null,
    };
    await recordRedacted(step, secrets, context.onStep);
    // After onStep, step.index is the step's number in the test's report.
    if (agentLesson) lesson({ ...agentLesson, url: snapshot.url, step: step.index });
    if (finished) {
      const resolved = finished === "done" && kind === "act" ? resolvedAfterRetries(instruction, observed) : null;
      if (resolved) lesson({ lesson: resolved, kind: "resolved_after_retries", url: snapshot.url, step: step.index });
      return {
        finished,
        text: secrets.redact(evidence),
        steps,
        fingerprint: fingerprintOf(snapshot),
        quote: quote === null ? null : secrets.redact(quote),
        refused,
        typedUnnamedSecret,
      };
    }

    const stalled = guard.observe(actionKey(tool, call.arguments), pageChanged);
    if (stalled) {
      lesson({
        lesson: stallLesson(instruction, action ?? tool, stalled.repeats),
        kind: "stall",
        url: snapshot.url,
        step: step.index,
      });
      throw new AgentStopped(
        "stall",
        `no progress: ${stalled.action} was repeated ${stalled.repeats} times and the page did not change`,
      );
    }
    past.push({
      call: tool ? { id: call.id, name: tool, arguments: call.arguments } : null,
      text: response.text,
      result: ok ? evidence : `error: ${evidence}`,
    });
  }
}
