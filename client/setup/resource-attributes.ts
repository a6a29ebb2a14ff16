/**
 * `OTEL_RESOURCE_ATTRIBUTES` as the OpenTelemetry specification defines it: comma-separated
 * `key=value` pairs whose keys and values are percent-encoded (W3C Baggage octets).
 */

/** Percent-encodes a key or value; the output uses only characters the format allows. */
export function encodeResourceText(text: string): string {
  return encodeURIComponent(text);
}

function decodedKey(pair: string): string {
  const key = pair.split("=", 1)[0]?.trim() ?? "";
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/**
 * Adds `key=value` to an existing list. Other entries are kept exactly as written; an entry
 * with the same key is replaced, because the launcher's value is the one that must hold.
 */
export function withResourceAttribute(existing: string | undefined, key: string, value: string): string {
  const kept = (existing ?? "")
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "" && decodedKey(pair) !== key);
  return [...kept, `${encodeResourceText(key)}=${encodeResourceText(value)}`].join(",");
}
