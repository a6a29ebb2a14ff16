/**
 * A trace's correlated logs as the waterfall shows them: each with its offset from the trace's
 * start and its body as one line of text (a structured body as JSON: telemetry is text, never
 * markup), oldest first, and grouped by span for the row markers. Pure.
 */
import type { JsonValue, LogRecord } from "../../../../shared/api-records.js";
import { isoToUnixNano, offsetMsOf } from "./trace-spans.js";

export interface TraceLogLine {
  logId: string;
  spanId: string | null;
  service: string;
  severity: string;
  severityNumber: number;
  offsetMs: number;
  body: string;
}

export function bodyText(body: JsonValue): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

/** The severity's name, from its text or its number's range (OTel: 1-4 trace ... 21-24 fatal). */
export function severityName(text: string | null, number: number): string {
  if (text) return text;
  const names = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];
  return number >= 1 ? (names[Math.min(5, Math.floor((number - 1) / 4))] as string) : "UNSET";
}

export function traceLogLines(logs: readonly LogRecord[], origin: string): TraceLogLine[] {
  return logs
    .map((log) => ({
      logId: log.logId,
      spanId: log.spanId,
      service: log.serviceName,
      severity: severityName(log.severityText, log.severityNumber),
      severityNumber: log.severityNumber,
      offsetMs: offsetMsOf(isoToUnixNano(log.timestamp), origin),
      body: bodyText(log.body),
    }))
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
