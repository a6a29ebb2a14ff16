import { describeAttributes } from "./any-value.js";
import { type AttributeHolder, attributesField, type PlainObject } from "./protobuf-any-value.js";
import {
  type Field,
  type MessageType,
  messageField,
  repeatedMessageField,
  SCALAR,
  scalarField,
} from "./protobuf-descriptor.js";
import { exportRequestType, readRequest, type ScopeEntryState } from "./protobuf-envelope.js";
import { FieldError } from "./protobuf-wire.js";
import type { SpanBatch, SpanRecord } from "./records.js";
import { MAX_STORED_NS, tooLate } from "./stored-time.js";

/**
 * Descriptors of opentelemetry/proto/trace/v1/trace.proto's Span and its nested messages, read
 * straight to span records: the same records decodeTraces (decode-traces.ts) gives for the same
 * request sent as OTLP/JSON.
 */

const ZERO_ID = /^0+$/;

/** A span as it is read; closed to a SpanRecord once its fields are in. */
class SpanState implements AttributeHolder {
  traceId: string | null = null;
  spanId: string | null = null;
  parentSpanId: string | null = null;
  traceState = "";
  name = "";
  kind = 0;
  flags = 0;
  startNs = 0n;
  endNs = 0n;
  readonly attributes: PlainObject = {};
  events: unknown[] | null = null;
  links: unknown[] | null = null;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  statusCode = 0;
  statusMessage: string | null = null;
  constructor(
    readonly resource: number,
    readonly scope: number,
  ) {}
}

interface StatusState {
  code: number;
  message: string;
}

/** Span.Status: message = 2, code = 3. */
const STATUS: MessageType<StatusState, StatusState, SpanState> = {
  name: "opentelemetry.proto.trace.v1.Status",
  fields: [
    scalarField(2, "message", SCALAR.string, (state: StatusState, message: string) => {
      state.message = message;
    }),
    scalarField(3, "code", SCALAR.uint32, (state: StatusState, code: number) => {
      state.code = code;
    }),
  ],
  open: () => ({ code: 0, message: "" }),
  close: (state) => state,
};

interface EventState extends AttributeHolder {
  time: bigint;
  name: string;
  dropped: number;
}

function setDropped(state: { dropped: number }, dropped: number): void {
  state.dropped = dropped;
}

/** Span.Event: time_unix_nano = 1, name = 2, attributes = 3, dropped_attributes_count = 4. */
const EVENT: MessageType<EventState, unknown, SpanState> = {
  name: "opentelemetry.proto.trace.v1.Span.Event",
  fields: [
    scalarField(1, "timeUnixNano", SCALAR.fixed64, (state: EventState, time: bigint) => {
      state.time = time;
    }),
    scalarField(2, "name", SCALAR.string, (state: EventState, name: string) => {
      state.name = name;
    }),
    attributesField(3),
    scalarField(4, "droppedAttributesCount", SCALAR.uint32, setDropped),
  ],
  open: () => ({ time: 0n, name: "", attributes: {}, dropped: 0 }),
  close: (state) => ({
    name: state.name,
    timeUnixNano: state.time.toString(),
    attributes: state.attributes,
    droppedAttributesCount: state.dropped,
  }),
};

interface LinkState extends AttributeHolder {
  traceId: string | null;
  spanId: string | null;
  traceState: string;
  dropped: number;
  flags: number;
}

/** Span.Link: trace_id = 1, span_id = 2, trace_state = 3, attributes = 4, dropped = 5, flags = 6. */
const LINK: MessageType<LinkState, unknown, SpanState> = {
  name: "opentelemetry.proto.trace.v1.Span.Link",
  fields: [
    scalarField(1, "traceId", SCALAR.id(16), (state: LinkState, id: string | null) => {
      state.traceId = id;
    }),
    scalarField(2, "spanId", SCALAR.id(8), (state: LinkState, id: string | null) => {
      state.spanId = id;
    }),
    scalarField(3, "traceState", SCALAR.string, (state: LinkState, traceState: string) => {
      state.traceState = traceState;
    }),
    attributesField(4),
    scalarField(5, "droppedAttributesCount", SCALAR.uint32, setDropped),
    scalarField(6, "flags", SCALAR.fixed32, (state: LinkState, flags: number) => {
      state.flags = flags;
    }),
  ],
  open: () => ({ traceId: null, spanId: null, traceState: "", attributes: {}, dropped: 0, flags: 0 }),
  close: (state) => ({
    traceId: state.traceId,
    spanId: state.spanId,
    traceState: state.traceState === "" ? null : state.traceState,
    attributes: state.attributes,
    droppedAttributesCount: state.dropped,
    flags: state.flags,
  }),
};

function addEvent(span: SpanState, event: unknown): void {
  if (span.events === null) span.events = [];
  span.events.push(event);
}

function addLink(span: SpanState, link: unknown): void {
  if (span.links === null) span.links = [];
  span.links.push(link);
}

const SPAN_FIELDS: readonly Field<SpanState>[] = [
  scalarField(1, "traceId", SCALAR.id(16), (span: SpanState, id: string | null) => {
    span.traceId = id;
  }),
  scalarField(2, "spanId", SCALAR.id(8), (span: SpanState, id: string | null) => {
    span.spanId = id;
  }),
  scalarField(3, "traceState", SCALAR.string, (span: SpanState, traceState: string) => {
    span.traceState = traceState;
  }),
  scalarField(4, "parentSpanId", SCALAR.id(8), (span: SpanState, id: string | null) => {
    span.parentSpanId = id;
  }),
  scalarField(5, "name", SCALAR.string, (span: SpanState, name: string) => {
    span.name = name;
  }),
  scalarField(6, "kind", SCALAR.uint32, (span: SpanState, kind: number) => {
    span.kind = kind;
  }),
  scalarField(7, "startTimeUnixNano", SCALAR.fixed64, (span: SpanState, ns: bigint) => {
    span.startNs = ns;
  }),
  scalarField(8, "endTimeUnixNano", SCALAR.fixed64, (span: SpanState, ns: bigint) => {
    span.endNs = ns;
  }),
  attributesField(9),
  scalarField(10, "droppedAttributesCount", SCALAR.uint32, (span: SpanState, count: number) => {
    span.droppedAttributesCount = count;
  }),
  repeatedMessageField(11, "events", EVENT, addEvent, { charge: 1 }),
  scalarField(12, "droppedEventsCount", SCALAR.uint32, (span: SpanState, count: number) => {
    span.droppedEventsCount = count;
  }),
  repeatedMessageField(13, "links", LINK, addLink, { charge: 1 }),
  scalarField(14, "droppedLinksCount", SCALAR.uint32, (span: SpanState, count: number) => {
    span.droppedLinksCount = count;
  }),
  messageField(15, "status", STATUS, (span: SpanState, status) => {
    span.statusCode = status.code;
    span.statusMessage = status.message === "" ? null : status.message;
  }),
  scalarField(16, "flags", SCALAR.fixed32, (span: SpanState, flags: number) => {
    span.flags = flags;
  }),
];

/** Span: closed to its record once its ids and times are checked. */
const SPAN: MessageType<SpanState, SpanRecord, ScopeEntryState<SpanRecord>> = {
  name: "opentelemetry.proto.trace.v1.Span",
  fields: SPAN_FIELDS,
  open: (entry) => new SpanState(entry.resource, entry.scope),
  close(span) {
    const { traceId, spanId, parentSpanId, startNs, endNs } = span;
    if (traceId === null || ZERO_ID.test(traceId)) throw new FieldError("traceId", "a span needs a non-zero trace id");
    if (spanId === null || ZERO_ID.test(spanId)) throw new FieldError("spanId", "a span needs a non-zero span id");
    if (startNs > MAX_STORED_NS) throw new FieldError("startTimeUnixNano", tooLate(startNs));
    if (endNs > MAX_STORED_NS) throw new FieldError("endTimeUnixNano", tooLate(endNs));
    const decoded = describeAttributes(span.attributes);
    return {
      traceId,
      spanId,
      parentSpanId: parentSpanId === null || ZERO_ID.test(parentSpanId) ? null : parentSpanId,
      traceState: span.traceState === "" ? null : span.traceState,
      flags: span.flags,
      name: span.name,
      kind: span.kind,
      startNs,
      endNs,
      statusCode: span.statusCode,
      statusMessage: span.statusMessage,
      attributes: decoded.json,
      indexed: decoded.indexed,
      events: span.events === null ? null : JSON.stringify(span.events),
      links: span.links === null ? null : JSON.stringify(span.links),
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
      resource: span.resource,
      scope: span.scope,
    };
  },
};

/** opentelemetry/proto/collector/trace/v1/trace_service.proto's ExportTraceServiceRequest. */
export const TRACE_REQUEST = exportRequestType(
  {
    request: "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
    resourceEntry: "opentelemetry.proto.trace.v1.ResourceSpans",
    scopeEntry: "opentelemetry.proto.trace.v1.ScopeSpans",
    resources: "resourceSpans",
    scopes: "scopeSpans",
    items: "spans",
  },
  SPAN,
);

/**
 * Decodes an OTLP/protobuf ExportTraceServiceRequest straight to span records: the same
 * records decodeTraces (decode-traces.ts) gives for the same request sent as OTLP/JSON.
 * Throws PayloadError naming the field on bad input.
 */
export function decodeTraceProtobuf(body: Buffer): SpanBatch {
  const { resources, scopes, records } = readRequest(body, TRACE_REQUEST);
  return { resources, scopes, spans: records };
}
