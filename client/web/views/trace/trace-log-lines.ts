/**
 * A trace's correlated logs as the waterfall shows them: each with its offset from the trace's
 * start, its severity read as the Logs view reads it, and its body as one line of text (a
 * structured body as JSON: telemetry is text, never markup), oldest first, and grouped by span
 * for the row markers. Pure.
 */
import type { LogRecord } from "../../../../shared/api-records.js";
import { bodyText } from "../../format/log-body.js";
import { type SeverityLevel, severityLabel, severityLevel } from "../../format/severity.js";
import { isoToUnixNano, offsetMsOf } from "./trace-spans.js";

export interface TraceLogLine {
  logId: string;
  spanId: string | null;
  service: string;
  /** What the row shows: the record's text, else its level's name (format/severity.ts, as in the Logs view). */
  severity: string;
  /** What colours it, from the number or, when that is 0, the text: the `sev-LEVEL` class. */
  level: SeverityLevel | "unset";
  offsetMs: number;
  body: string;
}

export function traceLogLines(logs: readonly LogRecord[], origin: string): TraceLogLine[] {
  return logs
    .map(
      (log): TraceLogLine => ({
        logId: log.logId,
        spanId: log.spanId,
        service: log.serviceName,
        severity: severityLabel(log.severityNumber, log.severityText),
        level: severityLevel(log.severityNumber, log.severityText) ?? "unset",
        offsetMs: offsetMsOf(isoToUnixNano(log.timestamp), origin),
        body: bodyText(log.body, 0).text,
      }),
    )
    .sort((a, b) => a.offsetMs - b.offsetMs);
}

export function logsBySpan(lines: readonly TraceLogLine[]): Map<string, TraceLogLine[]> {
  const bySpan = new Map<string, TraceLogLine[]>();
  for (const line of lines) {
    if (line.spanId === null) continue;
    const list = bySpan.get(line.spanId);
    if (list) list.push(line);
    else bySpan.set(line.spanId, [line]);
  }
  return bySpan;
}
