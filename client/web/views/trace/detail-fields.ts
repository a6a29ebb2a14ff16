/** The detail panel's fields as text: attributes sorted by key, values as text, never markup. Pure. */
import type { Attributes, JsonValue } from "../../../../shared/api-records.js";

export function valueText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** [key, value as text], by key. */
export function attributeRows(attributes: Attributes): [string, string][] {
  return Object.keys(attributes)
    .sort()
    .map((key) => [key, valueText(attributes[key] as JsonValue)]);
}

/** Attribute keys shown as a block of preformatted text (a stack keeps its lines). */
export function isBlockAttribute(key: string, value: string): boolean {
  return key === "exception.stacktrace" || value.includes("\n");
}
