/**
 * Error signatures: what makes two errors "the same". Numbers, ids and quoted values vary
 * between occurrences of one error, so they are folded before comparing.
 */

import { sliceWhole } from "../../shared/lone-surrogate.js";

const MAX_SIGNATURE_TEXT = 160;

/** A status message or exception type with its varying parts folded to placeholders. */
export function normalizeErrorText(text: string): string {
  return sliceWhole(
    text
      // Quoted values: "alice", 'order-17', `x`.
      .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, "<str>")
      // UUIDs, then long hex runs (trace, span and request ids, hashes).
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
      .replace(/\b(?:0x)?[0-9a-f]*\d[0-9a-f]*\b/gi, (match) => (match.length >= 8 ? "<id>" : match))
      // Remaining numbers, including decimals, dotted addresses and versions (3.5s, 10.0.0.7).
      .replace(/\d+(?:\.\d+)*/g, "<n>")
      .replace(/\s+/g, " ")
      .trim(),
    MAX_SIGNATURE_TEXT,
  );
}

/** The text part of a signature: the normalized status message, else the exception type. */
export function signatureText(message: string | null, exceptionType: string | null): string {
  if (message && message.trim() !== "") return normalizeErrorText(message);
  if (exceptionType && exceptionType.trim() !== "") return normalizeErrorText(exceptionType);
  return "(no message)";
}

/** Service, operation and text: the key new signatures are compared by. */
export function signatureKey(service: string, operation: string, text: string): string {
  return JSON.stringify([service, operation, text]);
}
