/**
 * `obs span` as a person reads it: the span, its trace and parent, its attributes, and its
 * events, where an exception's type, message and stack trace are what one looks for. Pure:
 * record in, lines out. Telemetry text goes through safeText, one line at a time, so a stack
 * trace keeps its lines but no control character reaches the terminal.
 */
import type { JsonValue, SpanRecord, TraceSummary } from "../../shared/api-records.js";
import { formatDuration, formatDurationNs } from "./duration-text.js";
import { safeText } from "./table.js";
import { isoToNs } from "./trace-waterfall.js";

/** `GET /api/spans/:id` as the span command reads it. */
export interface SpanView extends SpanRecord {
  trace: TraceSummary | null;
  parent: SpanRecord | null;
  missingParent: boolean;
}

function valueText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** `key = value`, a multi-line value (a stack trace) continued under it, each line escaped. */
function attributeLines(attributes: Record<string, JsonValue>, indent: string): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const [first = "", ...rest] = valueText(value).split(/\r?\n/);
    lines.push(`${indent}${safeText(key)} = ${safeText(first)}`);
    for (const line of rest) lines.push(`${indent}    ${safeText(line)}`);
  }
  return lines;
}

/** The span's status, with its message when it has one (`error: connection refused`). */
export function statusText(status: SpanRecord["status"]): string {
  return status.message ? `${status.code}: ${safeText(status.message)}` : status.code;
}

export function renderSpanDetail(s: SpanView): string[] {
  const parent = s.parent
    ? `${safeText(s.parent.operation)} (${s.parent.spanId})`
    : s.missingParent
      ? `${s.parentSpanId} (not in the store)`
      : "none (root)";
  const lines = [
    `span ${s.spanId}  ${safeText(s.operation)}  [${safeText(s.serviceName)}]  ${s.kind}  ${formatDurationNs(s.durationNs)}  ${statusText(s.status)}`,
    `  trace   ${s.traceId}${s.trace ? `  ${s.trace.status}  root ${safeText(s.trace.rootOperation)}` : ""}`,
    `  parent  ${parent}`,
    `  start   ${s.startTime}`,
    ...attributeLines(s.attributes, "  "),
  ];
  const events = s.events ?? [];
  if (events.length > 0 || s.droppedEventsCount > 0) {
    const dropped = s.droppedEventsCount > 0 ? ` (${s.droppedEventsCount} dropped by the sender)` : "";
    lines.push(`  events (${events.length})${dropped}`);
    const startNs = isoToNs(s.startTime);
    for (const event of events) {
      const offsetNs = isoToNs(event.time) - startNs;
      const offset = `${offsetNs < 0n ? "-" : "+"}${formatDuration(Math.abs(Number(offsetNs)) / 1e6)}`;
      lines.push(`    ${offset}  ${safeText(event.name)}`, ...attributeLines(event.attributes, "      "));
    }
  }
  return lines;
}
