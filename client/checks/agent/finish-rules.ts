/**
 * When the model may finish an instruction with `done`. Pure.
 *
 * An act is done only when its last browser action succeeded and at least one did: a `done`
 * after a failed action, or before any action, is refused once; a second one in that state
 * fails the act. A "browser action" is a call of one of ACTION_TOOLS that reached the page
 * (navigate, click, type, select, press, scroll, wait); record_lesson and calls the runner
 * refused (an unknown tool, missing arguments) are not actions and change nothing here. A
 * `wait` for text that did not appear still succeeded as an action; its evidence says so.
 *
 * A check is done only when its `quote` is found on the page as it is at that moment (its
 * visible text, element labels and values, compared with whitespace collapsed and case
 * ignored): that grounds the verdict in the page rather than in the model's word.
 */
import type { RawSnapshot } from "./snapshot-script.js";

/** Quotes shorter than this (after collapsing whitespace) show nothing and are refused. */
export const MIN_QUOTE_LENGTH = 3;

/** One browser action of an instruction, as the loop saw it. */
export interface ActionOutcome {
  /** The action in words (runner-lessons.ts describeAction). */
  action: string;
  ok: boolean;
  /** What happened, or why it failed. */
  evidence: string;
}

/** Why `done` is refused, in two forms: what the model is told, and the failure if it insists. */
export interface DoneRefusal {
  refusal: string;
  failure: string;
}

/** Null when an act may finish; else why not. */
export function actDoneRefusal(actions: readonly ActionOutcome[]): DoneRefusal | null {
  const last = actions.at(-1);
  if (!last) {
    return {
      refusal:
        "done refused: no browser action has been carried out for this instruction; carry it out first, or call fail",
      failure: "done without any browser action carried out",
    };
  }
  if (!last.ok) {
    return {
      refusal: `done refused: the last action failed (${last.action}: ${last.evidence}); carry the instruction out another way, or call fail`,
      failure: `the last action failed: ${last.action} (${last.evidence})`,
    };
  }
  return null;
}

/** Text as quotes are compared: Unicode compatibility forms folded, whitespace collapsed, case ignored. */
export function normalizeQuote(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

/** What a quote may come from: the visible text, then each element's label and value, one per line. */
export function quotableText(snapshot: RawSnapshot): string {
  const parts = [snapshot.text];
  for (const element of snapshot.elements) {
    if (element.label) parts.push(element.label);
    if (element.value) parts.push(element.value);
  }
  return parts.join("\n");
}

/**
 * Null when `quote` is on the page (`pageText` as quotableText gives it, in the form the model
 * was shown); else why the verdict is refused.
 */
export function quoteRefusal(quote: unknown, pageText: string): DoneRefusal | null {
  const text = typeof quote === "string" ? quote : "";
  const wanted = normalizeQuote(text);
  const shown = JSON.stringify(text);
  if (wanted.length < MIN_QUOTE_LENGTH) {
    return {
      refusal: `done refused: the quote ${shown} is too short to show anything; quote the page exactly (at least ${MIN_QUOTE_LENGTH} characters), or call fail`,
      failure: `the evidence was not on the page (the quote ${shown} is too short to show anything)`,
    };
  }
  if (normalizeQuote(pageText).includes(wanted)) return null;
  return {
    refusal: `the quote ${shown} is not on the page; quote the page exactly, or call fail`,
    failure: `the evidence was not on the page (the quote ${shown} is not on it)`,
  };
}
