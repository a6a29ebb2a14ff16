/**
 * A log record's times and severity text as the store keeps them (schema version 18,
 * migrations/v018-log-times.ts), written by the log writer and read back in the readers' SQL.
 *
 * - Times. `ts_ns` orders records: the record's time, else its observed time, else when it was
 *   received (`logTimestampNs`). The record's own time is then nearly always `ts_ns`, and its
 *   observed time close to it: `time_ns` is NULL when the record's time is `ts_ns` and 0 when
 *   it had none; `observed_offset_ns` is the observed time less `ts_ns`, NULL when it had none.
 * - Severity text. Most records carry the data model's short name of their severity number
 *   ("INFO" for 9, "WARN2" for 14): NULL stands for it. A record with no text (the decoders
 *   read an empty one as none) keeps '', any other text itself.
 */

/** The OpenTelemetry log data model's short names of severity numbers 1 to 24. */
const SHORT_NAMES: readonly string[] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"].flatMap((name) => [
  name,
  `${name}2`,
  `${name}3`,
  `${name}4`,
]);

/** The stored `time_ns` of a record whose time is `timeNs` (0n: it had none). */
export function storedTime(timeNs: bigint): bigint | null {
  return timeNs > 0n ? null : 0n;
}

/** The stored `observed_offset_ns` of a record observed at `observedNs` (0n: not given), ordered at `tsNs`. */
export function storedObservedOffset(observedNs: bigint, tsNs: bigint): bigint | null {
  return observedNs > 0n ? observedNs - tsNs : null;
}

/** The stored `severity_text` of a record's severity number and text. */
export function storedSeverityText(severityNumber: number, text: string | null): string | null {
  if (text === null) return "";
  return text === SHORT_NAMES[severityNumber - 1] ? null : text;
}

/** SQL reading the record's time of the logs row `l` as answers carry it: nanoseconds, 0 for none. */
export function logTimeSql(l: string): string {
  return `coalesce(${l}.time_ns, ${l}.ts_ns)`;
}

/** SQL reading the observed time of the logs row `l`: nanoseconds, 0 for none. */
export function logObservedSql(l: string): string {
  return `CASE WHEN ${l}.observed_offset_ns IS NULL THEN 0 ELSE ${l}.ts_ns + ${l}.observed_offset_ns END`;
}

/** SQL reading the severity text of the logs row `l`: the text it was sent with, or NULL. */
export function logSeverityTextSql(l: string): string {
  const shortName = SHORT_NAMES.map((name, i) => `WHEN ${i + 1} THEN '${name}'`).join(" ");
  return `CASE WHEN ${l}.severity_text IS NULL THEN CASE ${l}.severity_number ${shortName} END
    WHEN ${l}.severity_text = '' THEN NULL ELSE ${l}.severity_text END`;
}
