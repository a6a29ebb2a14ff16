/**
 * A log body as text a person can read, whatever its kind: strings as themselves (long ones
 * folded), maps and arrays as indented JSON, numbers and booleans as written. Bytes arrive from
 * the API as base64 text and are shown as that text. Never markup: the view renders the result
 * as a text node. Pure.
 */
import type { JsonValue } from "../../../shared/api-records.js";

export interface BodyText {
  /** `text`: a string body; `structured`: a map or an array (shown in a <pre>); `scalar`: number, boolean; `empty`: null or "". */
  kind: "text" | "structured" | "scalar" | "empty";
  text: string;
}

/** `indent` spaces a structured body's JSON (the Logs view's <pre>); 0 writes it on one line (the Trace view's log list). */
export function bodyText(body: JsonValue, indent = 2): BodyText {
  if (body === null || body === "") return { kind: "empty", text: "" };
  if (typeof body === "string") return { kind: "text", text: body };
  if (typeof body === "number" || typeof body === "boolean") return { kind: "scalar", text: String(body) };
  return { kind: "structured", text: JSON.stringify(body, null, indent) };
}

/** Where a long body is cut in a row: at most this many characters, */
export const FOLD_CHARS = 400;
/** and at most this many lines. */
export const FOLD_LINES = 8;

/** The part of `text` a folded row shows, or null when the whole text is short enough to show. */
export function foldedText(text: string, maxChars = FOLD_CHARS, maxLines = FOLD_LINES): string | null {
  let end = Math.min(text.length, maxChars);
  let lines = 1;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++lines > maxLines) {
      end = i;
      break;
    }
  }
  return end < text.length ? text.slice(0, end) : null;
}

/** An attribute value as one line of text: strings as themselves, anything else as JSON. */
export function valueText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
