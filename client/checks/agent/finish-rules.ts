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
 * full visible text, element labels and values, each on its own, compared with whitespace
 * collapsed, typographic punctuation as ASCII and case ignored): that grounds the verdict in the page rather than in the model's word.
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

/**
 * Between the parts of the page a quote may come from. Not whitespace (which is collapsed), and
 * turned into a space in a quote, so no quote can match across two parts.
 */
const PART_SEPARATOR = "\u0000";

/** Typographic forms a model (or a page) may use for ASCII ones; NFKC does not fold these. */
const TYPOGRAPHIC: [RegExp, string][] = [
  [/[\u2018\u2019\u201a\u201b\u2032\u02bc]/g, "'"],
  [/[\u201c\u201d\u201e\u201f]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, "-"],
  [/\u2026/g, "..."],
];

/**
 * Text as quotes are compared: Unicode compatibility forms folded, typographic quotes, dashes and
 * the ellipsis as ASCII, whitespace collapsed, case ignored.
 */
export function normalizeQuote(text: string): string {
  let folded = text.normalize("NFKC").replaceAll(PART_SEPARATOR, " ");
  for (const [pattern, ascii] of TYPOGRAPHIC) folded = folded.replace(pattern, ascii);
  return folded.replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * What a quote may come from: the visible text (the page's full text too, when known: the
 * snapshot's is cut at MAX_TEXT), then each element's label and value, each a part of its own.
 */
export function quotableText(snapshot: RawSnapshot, fullText?: string | null): string {
  const parts = [snapshot.text];
  if (fullText) parts.push(fullText);
  for (const element of snapshot.elements) {
    if (element.label) parts.push(element.label);
    if (element.value) parts.push(element.value);
  }
  return parts.join(PART_SEPARATOR);
}

/** quotableText with the page's full visible text, when the page can give it (falls back to the snapshot's). */
export async function groundingText(page: { fullText?(): Promise<string> }, snapshot: RawSnapshot): Promise<string> {
  const full = page.fullText ? await page.fullText().catch(() => null) : null;
  return quotableText(snapshot, full);
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
  const parts = pageText.split(PART_SEPARATOR).map(normalizeQuote);
  if (parts.some((part) => part.includes(wanted))) return null;
  return {
    refusal: `the quote ${shown} is not on the page; quote the page exactly, or call fail`,
    failure: `the evidence was not on the page (the quote ${shown} is not on it)`,
  };
}
