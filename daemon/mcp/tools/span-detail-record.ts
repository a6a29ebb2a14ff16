/**
 * A span as get_span_details and get_trace_errors show it: every field a model may need,
 * under short snake_case keys, with exception events read out (type, message, stack) and long
 * strings cut with a marker. Sizes come in levels, so an answer that does not fit can shrink
 * its spans before it drops any. Pure.
 */
import type { Attributes, JsonValue, SpanEventRecord, SpanRecord } from "../../../shared/api-records.js";
import { cutLongStrings, cutString } from "../budget.js";
import { msBetween } from "./durations.js";

export interface ExceptionRecord {
  type: string | null;
  message: string | null;
  /** The stack trace, cut (first lines only in get_trace_errors). */
  stack: string | null;
}

export interface EventDetail {
  name: string;
  time: string;
  attributes: Attributes;
  exception?: ExceptionRecord;
}

export interface SpanDetail {
  span_id: string;
  trace_id: string;
  ui_url: string;
  parent_span_id: string | null;
  name: string;
  service: string;
  kind: SpanRecord["kind"];
  start: string;
  end: string;
  duration_ms: number;
  status: SpanRecord["status"];
  attributes: Attributes;
  events: EventDetail[];
  links: { trace_id: string | null; span_id: string | null; attributes: Attributes }[];
  resource: Attributes;
  scope: { name: string; version: string | null };
  /** Items left out: by the sender (dropped_*) and by this answer's size level (omitted_*). */
  dropped?: Record<string, number>;
}

/** How far a detail is shrunk: the longest string kept, and how many attributes, events and links. */
export interface DetailLevel {
  chars: number;
  stackChars: number;
  items: number;
}

/** Whole (strings up to 2000 characters), then tighter, then bare; tried in this order. */
export const DETAIL_LEVELS: readonly DetailLevel[] = [
  { chars: 2000, stackChars: 4000, items: Number.POSITIVE_INFINITY },
  { chars: 300, stackChars: 1000, items: 64 },
  { chars: 80, stackChars: 300, items: 16 },
];

function text(value: JsonValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** An exception event's type, message and stack (OTel semantic conventions), else undefined. */
export function exceptionOf(event: SpanEventRecord, chars: number, stackChars: number): ExceptionRecord | undefined {
  if (event.name !== "exception") return undefined;
  const cut = (value: string | null, max: number) => (value === null ? null : cutString(value, max));
  return {
    type: cut(text(event.attributes["exception.type"]), chars),
    message: cut(text(event.attributes["exception.message"]), chars),
    stack: cut(text(event.attributes["exception.stacktrace"]), stackChars),
  };
}

/** The first `lines` lines of a stack, with a marker for the rest. */
export function stackHead(stack: string, lines: number): string {
  const all = stack.split("\n");
  return all.length <= lines ? stack : `${all.slice(0, lines).join("\n")}\n…[+${all.length - lines} lines]`;
}

function firstEntries(attributes: Attributes, items: number, omitted: { count: number }): Attributes {
  const entries = Object.entries(attributes);
  if (entries.length <= items) return attributes;
  omitted.count += entries.length - items;
  return Object.fromEntries(entries.slice(0, items));
}

export function spanDetail(
  span: SpanRecord,
  uiUrl: string,
  level: DetailLevel = DETAIL_LEVELS[0] as DetailLevel,
): SpanDetail {
  const omitted = { count: 0 };
  const cut = (value: string) => cutString(value, level.chars);
  const events = span.events.slice(0, level.items).map((event): EventDetail => {
    const exception = exceptionOf(event, level.chars, level.stackChars);
    const attributes = exception
      ? Object.fromEntries(Object.entries(event.attributes).filter(([key]) => !key.startsWith("exception.")))
      : event.attributes;
    return {
      name: cut(event.name),
      time: event.time,
      attributes: cutLongStrings(firstEntries(attributes, level.items, omitted), level.chars),
      ...(exception ? { exception } : {}),
    };
  });
  const dropped: Record<string, number> = {};
  if (span.droppedAttributesCount) dropped.dropped_attributes = span.droppedAttributesCount;
  if (span.droppedEventsCount) dropped.dropped_events = span.droppedEventsCount;
  if (span.droppedLinksCount) dropped.dropped_links = span.droppedLinksCount;
  if (span.events.length > level.items) dropped.omitted_events = span.events.length - level.items;
  if (span.links.length > level.items) dropped.omitted_links = span.links.length - level.items;
  const detail: SpanDetail = {
    span_id: span.spanId,
    trace_id: span.traceId,
    ui_url: uiUrl,
    parent_span_id: span.parentSpanId,
    name: cut(span.operation),
    service: cut(span.serviceName),
    kind: span.kind,
    start: span.startTime,
    end: span.endTime,
    duration_ms: msBetween(span.startTimeUnixNano, span.endTimeUnixNano),
    status: {
      code: span.status.code,
      message: span.status.message === null ? null : cut(span.status.message),
    },
    attributes: cutLongStrings(firstEntries(span.attributes, level.items, omitted), level.chars),
    events,
    links: span.links.slice(0, level.items).map((link) => ({
      trace_id: link.traceId,
      span_id: link.spanId,
      attributes: cutLongStrings(firstEntries(link.attributes, level.items, omitted), level.chars),
    })),
    resource: cutLongStrings(firstEntries(span.resource.attributes, level.items, omitted), level.chars),
    scope: { name: cut(span.scope.name), version: span.scope.version === null ? null : cut(span.scope.version) },
  };
  if (omitted.count) dropped.omitted_attributes = omitted.count;
  return Object.keys(dropped).length ? { ...detail, dropped } : detail;
}
