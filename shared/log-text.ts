/** A log record's parts as one line of text, for every place that shows logs as rows. Pure. */
import type { LogRecord } from "./api-records.js";

/**
 * A log's body as text: a string as it is, any other value as its JSON, and none as null (which
 * a table shows as every absent value, `-`, and a JSON answer as null, as the API does).
 */
export function logBodyText(body: LogRecord["body"]): string | null {
  if (body === null || body === undefined) return null;
  return typeof body === "string" ? body : JSON.stringify(body);
}
