/** Stored rows to API records, and the span tree. Pure functions of their inputs. */

import type {
  Attributes,
  LogRecord,
  ResourceRecord,
  ScopeRecord,
  SpanLinkRecord,
  SpanRecord,
  SpanTreeNode,
  TraceSummary,
} from "../../shared/api-records.js";
import { nsToIso, nsToMs } from "../../shared/time.js";
import type { PlainValue } from "../otlp/any-value.js";
import { idText, optionalIdText } from "../store/stored-ids.js";
import { readDetails } from "../store/stored-span-fields.js";
import { capAttributes, capOptionalText, capText, capValue } from "./value-cap.js";

const KINDS: SpanRecord["kind"][] = ["unspecified", "internal", "server", "client", "producer", "consumer"];
const STATUS: SpanRecord["status"]["code"][] = ["unset", "ok", "error"];

/**
 * Rows as the reader selects them: ids are the stored bytes (stored-ids.ts), turned into hex
 * here, for the rows a query returns only (not for every row its sort reads).
 */
export interface SpanRow {
  trace_id: Buffer;
  span_id: Buffer;
  parent_span_id: Buffer | null;
  service: string;
  name: string;
  kind: bigint;
  start_ns: bigint;
  end_ns: bigint;
  duration_ns: bigint;
  status_code: bigint;
  status_message: string | null;
  flags: bigint;
  attributes: string;
  /** store/stored-span-fields.ts */
  details: string | null;
  resource_attributes: string;
  resource_schema_url: string | null;
  resource_dropped: bigint;
  scope_name: string;
  scope_version: string | null;
  scope_attributes: string;
  scope_schema_url: string | null;
  scope_dropped: bigint;
}

export interface TraceRow {
  trace_id: Buffer;
  start_ns: bigint;
  end_ns: bigint;
  span_count: bigint;
  error_count: bigint;
  root_span_id: Buffer | null;
  root_name: string | null;
  root_service: string | null;
  services: string | null;
}

export interface LogRow {
  hash: Buffer;
  ts_ns: bigint;
  time_ns: bigint;
  observed_ns: bigint;
  severity_number: bigint;
  severity_text: string | null;
  body: string | null;
  attributes: string;
  trace_id: Buffer | null;
  span_id: Buffer | null;
  flags: bigint;
  event_name: string | null;
  dropped_attributes_count: bigint;
  service: string;
  resource_attributes: string;
  resource_schema_url: string | null;
  resource_dropped: bigint;
  scope_name: string;
  scope_version: string | null;
  scope_attributes: string;
  scope_schema_url: string | null;
  scope_dropped: bigint;
}

interface StoredEvent {
  name: string;
  timeUnixNano: string;
  attributes: Attributes;
  droppedAttributesCount: number;
}

/** Stored attributes as an answer carries them: each value within MAX_VALUE_BYTES (value-cap.ts). */
function attributesOf(json: string): Attributes {
  return capAttributes(JSON.parse(json) as Attributes);
}

function capLink(link: SpanLinkRecord): SpanLinkRecord {
  return {
    ...link,
    traceState: capOptionalText(link.traceState ?? null),
    ...(link.attributes ? { attributes: capAttributes(link.attributes) } : {}),
  };
}

/** The resource and scope of a span or log row, every text within the cap. */
function resourceOf(row: SpanRow | LogRow): ResourceRecord {
  return {
    attributes: attributesOf(row.resource_attributes),
    schemaUrl: capOptionalText(row.resource_schema_url),
    droppedAttributesCount: Number(row.resource_dropped),
  };
}

function scopeOf(row: SpanRow | LogRow): ScopeRecord {
  return {
    name: capText(row.scope_name),
    version: capOptionalText(row.scope_version),
    attributes: attributesOf(row.scope_attributes),
    schemaUrl: capOptionalText(row.scope_schema_url),
    droppedAttributesCount: Number(row.scope_dropped),
  };
}

/** A duration in nanoseconds as a JSON number (exact up to 104 days). */
function nanos(value: bigint): number {
  return Number(value);
}

export function toTraceSummary(row: TraceRow): TraceSummary {
  const errors = Number(row.error_count);
  return {
    traceId: idText(row.trace_id),
    rootServiceName: capOptionalText(row.root_service),
    rootOperation: capOptionalText(row.root_name),
    rootSpanId: optionalIdText(row.root_span_id),
    startTime: nsToIso(row.start_ns),
    endTime: nsToIso(row.end_ns),
    durationMs: nsToMs(row.end_ns > row.start_ns ? row.end_ns - row.start_ns : 0n),
    spanCount: Number(row.span_count),
    errorCount: errors,
    status: errors > 0 ? "error" : "ok",
    services: row.services ? (JSON.parse(row.services) as string[]).sort().map(capText) : [],
  };
}

export function toSpanRecord(row: SpanRow): SpanRecord {
  const details = readDetails(row.details);
  const events = (details.events ?? []) as StoredEvent[];
  return {
    traceId: idText(row.trace_id),
    spanId: idText(row.span_id),
    parentSpanId: optionalIdText(row.parent_span_id),
    serviceName: capText(row.service),
    operation: capText(row.name),
    kind: KINDS[Number(row.kind)] ?? "unspecified",
    startTime: nsToIso(row.start_ns),
    endTime: nsToIso(row.end_ns),
    startTimeUnixNano: row.start_ns.toString(),
    endTimeUnixNano: row.end_ns.toString(),
    durationNs: nanos(row.duration_ns),
    status: { code: STATUS[Number(row.status_code)] ?? "unset", message: capOptionalText(row.status_message) },
    attributes: attributesOf(row.attributes),
    events: events.map((event) => ({
      ...event,
      name: capText(event.name ?? ""),
      attributes: capAttributes(event.attributes ?? {}),
      time: nsToIso(BigInt(event.timeUnixNano)),
    })),
    links: ((details.links ?? []) as SpanLinkRecord[]).map(capLink),
    resource: resourceOf(row),
    scope: scopeOf(row),
    traceState: capOptionalText(details.traceState),
    flags: Number(row.flags),
    droppedAttributesCount: details.droppedAttributesCount,
    droppedEventsCount: details.droppedEventsCount,
    droppedLinksCount: details.droppedLinksCount,
  };
}

export function toLogRecord(row: LogRow): LogRecord {
  return {
    logId: row.hash.toString("hex"),
    timestamp: nsToIso(row.ts_ns),
    time: row.time_ns > 0n ? nsToIso(row.time_ns) : null,
    observedTime: row.observed_ns > 0n ? nsToIso(row.observed_ns) : null,
    severityNumber: Number(row.severity_number),
    severityText: capOptionalText(row.severity_text),
    body: row.body === null ? null : capValue(JSON.parse(row.body) as PlainValue),
    attributes: attributesOf(row.attributes),
    traceId: optionalIdText(row.trace_id),
    spanId: optionalIdText(row.span_id),
    serviceName: capText(row.service),
    resource: resourceOf(row),
    scope: scopeOf(row),
    flags: Number(row.flags),
    eventName: capOptionalText(row.event_name),
    droppedAttributesCount: Number(row.dropped_attributes_count),
  };
}

/**
 * The span tree of one trace, as a flat list in depth-first order: each span is followed by
 * its descendants, children ordered by start time (then span id), and carries its `depth`.
 * A flat list keeps the answer's JSON nesting constant however deep the trace is: a parent
 * chain thousands deep can be serialized, sent between threads and parsed by any client,
 * where nested `children` would overflow the stack of each of them. Spans whose parent is
 * not in the trace are placed at the top and flagged `missingParent` (unless `storedParents`
 * holds it: stored, outside the spans given); so is the first span of a cycle of parent ids,
 * unflagged: its parent is stored. Nothing here recurses.
 */
export function buildSpanTree(spans: SpanRecord[], storedParents: ReadonlySet<string> = new Set()): SpanTreeNode[] {
  const ordered = [...spans].sort((a, b) =>
    a.startTimeUnixNano === b.startTimeUnixNano
      ? a.spanId.localeCompare(b.spanId)
      : BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano)
        ? -1
        : 1,
  );
  const byId = new Map<string, SpanRecord>();
  for (const span of ordered) if (!byId.has(span.spanId)) byId.set(span.spanId, span);
  const children = new Map<string, SpanRecord[]>();
  const roots: SpanRecord[] = [];
  for (const span of ordered) {
    const parent = span.parentSpanId;
    if (parent !== null && parent !== span.spanId && byId.has(parent)) {
      const list = children.get(parent);
      if (list) list.push(span);
      else children.set(parent, [span]);
    } else {
      roots.push(span);
    }
  }
  // Spans caught in a cycle of parent ids are unreachable from the roots: the first of each to
  // start is shown at the top too. Found before anything is output, so that the top rows
  // come in start order.
  const reached = new Set<SpanRecord>();
  const reach = (top: SpanRecord) => {
    const stack = [top];
    while (stack.length > 0) {
      const span = stack.pop() as SpanRecord;
      if (reached.has(span)) continue;
      reached.add(span);
      for (const kid of children.get(span.spanId) ?? []) stack.push(kid);
    }
  };
  for (const root of roots) reach(root);
  const tops = new Set(roots);
  for (const span of ordered) {
    if (reached.has(span)) continue;
    tops.add(span);
    reach(span);
  }
  const out: SpanTreeNode[] = [];
  const placed = new Set<SpanRecord>();
  // Depth-first with an explicit stack; children are pushed in reverse to come out in order.
  const walk = (top: SpanRecord) => {
    const stack: { span: SpanRecord; depth: number }[] = [{ span: top, depth: 0 }];
    while (stack.length > 0) {
      const { span, depth } = stack.pop() as { span: SpanRecord; depth: number };
      if (placed.has(span)) continue;
      placed.add(span);
      // At the top, a span whose parent is in the trace (itself, or a cycle) has it stored.
      const parent = span.parentSpanId;
      const missing = depth === 0 && parent !== null && !byId.has(parent) && !storedParents.has(parent);
      out.push(treeNode(span, depth, missing));
      const kids = children.get(span.spanId) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i] as SpanRecord, depth: depth + 1 });
    }
  };
  for (const span of ordered) if (tops.has(span)) walk(span);
  return out;
}

function treeNode(span: SpanRecord, depth: number, missingParent: boolean): SpanTreeNode {
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    serviceName: span.serviceName,
    operation: span.operation,
    kind: span.kind,
    startTime: span.startTime,
    durationMs: span.durationNs / 1e6,
    status: span.status.code,
    depth,
    missingParent,
  };
}
