/**
 * What the runner learns by watching the agent, for the skills journal. Pure. Lessons name
 * elements by role and label and never carry typed text, so a password cannot reach the journal.
 */
import type { LessonKind } from "../../skills/skill-journal.js";
import type { RawElement } from "./snapshot-script.js";

/** A lesson before its test has finished (the journal entry adds the test, its outcome and the time). */
export interface LessonDraft {
  skill: string | null;
  lesson: string;
  source: "agent" | "runner";
  kind: LessonKind;
  url: string;
  step: number;
  instruction: string;
}

/** One action of an instruction, as the runner saw it. */
export interface ObservedAction {
  /** describeAction's text. */
  action: string;
  ok: boolean;
}

function elementText(element: RawElement | undefined, index: unknown): string {
  if (!element) return `element [${String(index)}]`;
  const kind = element.role ?? (element.tag === "input" && element.type ? `${element.type} field` : element.tag);
  return element.label ? `${kind} ${JSON.stringify(element.label)}` : kind;
}

/** An action in words that stay the same from run to run: no element numbers, no typed text. */
export function describeAction(tool: string, args: Record<string, unknown>, elements: RawElement[]): string {
  const target = () =>
    elementText(
      elements.find((element) => element.index === args.index),
      args.index,
    );
  switch (tool) {
    case "click":
      return `click ${target()}`;
    case "type":
      return `type into ${target()}`;
    case "select":
      return `select ${JSON.stringify(String(args.option))} in ${target()}`;
    case "press":
      return `press ${String(args.key)}`;
    case "scroll":
      return args.index !== undefined ? `scroll to ${target()}` : `scroll ${String(args.direction)}`;
    case "wait":
      return args.text !== undefined ? `wait for ${JSON.stringify(String(args.text))}` : "wait";
    case "navigate":
      return `navigate to ${String(args.url)}`;
    default:
      return tool || "no tool call";
  }
}

/**
 * An instruction carried out after failed attempts: the last action that worked is the lesson.
 * Null when nothing failed first (nothing was learned) or nothing worked.
 */
export function resolvedAfterRetries(instruction: string, actions: ObservedAction[]): string | null {
  const failed = actions.filter((action) => !action.ok).length;
  const resolving = [...actions].reverse().find((action) => action.ok);
  if (failed === 0 || !resolving) return null;
  return `"${instruction}" was carried out by: ${resolving.action} (after ${failed} failed ${failed === 1 ? "attempt" : "attempts"})`;
}

export function stallLesson(instruction: string, action: string, repeats: number): string {
  return `"${instruction}" stalled: ${action} was repeated ${repeats} times and the page did not change; wait for the page or choose another element`;
}

/** The site a lesson is about: the page's origin, or null for pages without one (about:blank, data:). */
export function siteOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}
