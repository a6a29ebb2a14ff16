import type { PlainValue } from "../otlp/any-value.js";

/**
 * The most bytes (UTF-8, as JSON for arrays and maps) any one attribute value, log body or
 * other text of a record takes in an answer. The store keeps values whole; answers are
 * bounded so that one span with a megabyte-long attribute or status message cannot make
 * every query that returns it a megabyte larger.
 */
export const MAX_VALUE_BYTES = 32 * 1024;

/** Marks a cut value; says how large it was and how much of it is shown. */
function marker(totalBytes: number, shownBytes: number): string {
  return `… [cut by obs: ${totalBytes} bytes, the first ${shownBytes} shown]`;
}

/** The first `maxBytes` of `text` in UTF-8, never splitting a character. */
function prefix(text: string, maxBytes: number): string {
  const cut = Buffer.from(text, "utf8").subarray(0, maxBytes).toString("utf8");
  return cut.endsWith("\uFFFD") && !text.startsWith(cut) ? cut.slice(0, -1) : cut;
}

/**
 * A text as an answer carries it: unchanged when within MAX_VALUE_BYTES, else its first
 * MAX_VALUE_BYTES and the marker. Every text of a record (names, status messages, scope
 * versions, trace states) is cut so, as attribute values are: the store keeps them whole.
 */
export function capText(text: string): string {
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit: shorter strings need no count.
  if (text.length * 3 <= MAX_VALUE_BYTES) return text;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= MAX_VALUE_BYTES) return text;
  const shown = prefix(text, MAX_VALUE_BYTES);
  return shown + marker(bytes, Buffer.byteLength(shown, "utf8"));
}

/** capText() of a text that may be absent. */
export function capOptionalText(text: string | null): string | null {
  return text === null ? null : capText(text);
}

/**
 * The value as an answer carries it: unchanged when within MAX_VALUE_BYTES; else a string of
 * its first MAX_VALUE_BYTES (an array or map as its JSON text) ending in a marker that says
 * what was cut.
 */
export function capValue(value: PlainValue): PlainValue {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") return capText(value);
  const json = JSON.stringify(value);
  if (json.length * 3 <= MAX_VALUE_BYTES) return value;
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes <= MAX_VALUE_BYTES) return value;
  const shown = prefix(json, MAX_VALUE_BYTES);
  return shown + marker(bytes, Buffer.byteLength(shown, "utf8"));
}

/** Attributes with every value capped (in place: the object was just parsed for this answer). */
export function capAttributes<T extends Record<string, PlainValue>>(attributes: T): T {
  const values = attributes as Record<string, PlainValue>;
  for (const key in values) values[key] = capValue(values[key] as PlainValue);
  return attributes;
}
