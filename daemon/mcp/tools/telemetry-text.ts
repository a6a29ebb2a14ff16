/**
 * Telemetry text inside the words the tools write around it: the summary before an answer's
 * JSON (mcp-tool-call.ts) and the `why` of a suggested call. A span name, a log scope or a
 * metric name is the sender's data (docs/RELIABILITY.md): pasted raw, it could end the summary
 * early, fake the JSON after it, move a terminal's cursor, or run to tens of thousands of
 * characters. Pure.
 */
import { cutString } from "../budget.js";

/** The most characters of one telemetry value a summary or a `why` quotes. */
export const LABEL_CHARS = 80;

/**
 * Characters JSON.stringify leaves raw that still act on a display: DEL and the C1 controls
 * (0x9b is a terminal's CSI), the line and paragraph separators, and the bidirectional
 * overrides that show text in another order than it reads.
 */
const STILL_ACTIVE = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as a summary quotes it: cut to LABEL_CHARS, as a JSON string, so quotes show where the
 * sender's text starts and ends and no control character in it is raw (a JSON escape instead).
 */
export function quoted(text: string): string {
  return JSON.stringify(cutString(text, LABEL_CHARS)).replace(
    STILL_ACTIVE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `text` inside a `why`: cut to LABEL_CHARS (the answer's JSON escapes what needs it). */
export function label(text: string): string {
  return cutString(text, LABEL_CHARS);
}
