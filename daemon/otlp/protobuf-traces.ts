import { describeAttributes } from "./any-value.js";
import { chargeDecoded, RECORD_UNITS } from "./decode-allowance.js";
import { type PlainObject, readAttribute } from "./protobuf-any-value.js";
import { readRequest } from "./protobuf-envelope.js";
import { expectWireType, FieldError, readMessage, WIRE, type WireReader } from "./protobuf-wire.js";
import type { SpanBatch, SpanRecord } from "./records.js";
import { MAX_STORED_NS, tooLate } from "./stored-time.js";

const ZERO_ID = /^0+$/;
const TRACE_FIELDS = { resources: "resourceSpans", scopes: "scopeSpans", items: "spans" } as const;

/**
 * Decodes an OTLP/protobuf ExportTraceServiceRequest straight to span records: the same
 * records decodeTraces (decode-traces.ts) gives for the same request sent as OTLP/JSON.
 * Throws PayloadError naming the field on bad input.
 */
export function decodeTraceProtobuf(body: Buffer): SpanBatch {
  const { resources, scopes, records } = readRequest(body, TRACE_FIELDS, readSpan);
  return { resources, scopes, spans: records };
}

function readSpan(reader: WireReader, end: number, resource: number, scope: number): SpanRecord {
  chargeDecoded(RECORD_UNITS);
  let traceId: string | null = null;
  let spanId: string | null = null;
  let parentSpanId: string | null = null;
  let traceState = "";
  let name = "";
  let kind = 0;
  let flags = 0;
  let startNs = 0n;
  let endNs = 0n;
  const attributes: PlainObject = {};
  let attributeCount = 0;
  let events: unknown[] | null = null;
  let links: unknown[] | null = null;
  let droppedAttributesCount = 0;
  let droppedEventsCount = 0;
  let droppedLinksCount = 0;
  let statusCode = 0;
  let statusMessage: string | null = null;
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, WIRE.LENGTH, "traceId");
        traceId = reader.id(16, "traceId");
        break;
      case 2:
        expectWireType(tag, WIRE.LENGTH, "spanId");
        spanId = reader.id(8, "spanId");
        break;
      case 3:
        expectWireType(tag, WIRE.LENGTH, "traceState");
        traceState = reader.string();
        break;
      case 4:
        expectWireType(tag, WIRE.LENGTH, "parentSpanId");
        parentSpanId = reader.id(8, "parentSpanId");
        break;
      case 5:
        expectWireType(tag, WIRE.LENGTH, "name");
        name = reader.string();
        break;
      case 6:
        expectWireType(tag, WIRE.VARINT, "kind");
        kind = reader.uint32();
        break;
      case 7:
        expectWireType(tag, WIRE.FIXED64, "startTimeUnixNano");
        startNs = reader.fixed64();
        break;
      case 8:
        expectWireType(tag, WIRE.FIXED64, "endTimeUnixNano");
        endNs = reader.fixed64();
        break;
      case 9:
        readAttribute(reader, tag, attributes, attributeCount++);
        break;
      case 10:
        expectWireType(tag, WIRE.VARINT, "droppedAttributesCount");
        droppedAttributesCount = reader.uint32();
        break;
      case 11:
        events ??= [];
        events.push(readMessage(reader, tag, `events[${events.length}]`, readEvent));
        break;
      case 12:
        expectWireType(tag, WIRE.VARINT, "droppedEventsCount");
        droppedEventsCount = reader.uint32();
        break;
      case 13:
        links ??= [];
        links.push(readMessage(reader, tag, `links[${links.length}]`, readLink));
        break;
      case 14:
        expectWireType(tag, WIRE.VARINT, "droppedLinksCount");
        droppedLinksCount = reader.uint32();
        break;
      case 15: {
        const status = readMessage(reader, tag, "status", readStatus);
        statusCode = status.code;
        statusMessage = status.message;
        break;
      }
      case 16:
        expectWireType(tag, WIRE.FIXED32, "flags");
        flags = reader.fixed32();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  if (traceId === null || ZERO_ID.test(traceId)) throw new FieldError("traceId", "a span needs a non-zero trace id");
  if (spanId === null || ZERO_ID.test(spanId)) throw new FieldError("spanId", "a span needs a non-zero span id");
  if (startNs > MAX_STORED_NS) throw new FieldError("startTimeUnixNano", tooLate(startNs));
  if (endNs > MAX_STORED_NS) throw new FieldError("endTimeUnixNano", tooLate(endNs));
  const decoded = describeAttributes(attributes);
  return {
    traceId,
    spanId,
    parentSpanId: parentSpanId === null || ZERO_ID.test(parentSpanId) ? null : parentSpanId,
    traceState: traceState === "" ? null : traceState,
    flags,
    name,
    kind,
    startNs,
    endNs,
    statusCode,
    statusMessage,
    attributes: decoded.json,
    indexed: decoded.indexed,
    events: events === null ? null : JSON.stringify(events),
    links: links === null ? null : JSON.stringify(links),
    droppedAttributesCount,
    droppedEventsCount,
    droppedLinksCount,
    resource,
    scope,
  };
}

/** Status: message = 2, code = 3. */
function readStatus(reader: WireReader, end: number): { code: number; message: string | null } {
  let code = 0;
  let message = "";
  while (reader.pos < end) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 2) {
      expectWireType(tag, WIRE.LENGTH, "message");
      message = reader.string();
    } else if (field === 3) {
      expectWireType(tag, WIRE.VARINT, "code");
      code = reader.uint32();
    } else reader.skip(tag);
  }
  reader.expectEnd(end);
  return { code, message: message === "" ? null : message };
}

/** Span.Event: time_unix_nano = 1, name = 2, attributes = 3, dropped_attributes_count = 4. */
function readEvent(reader: WireReader, end: number): unknown {
  chargeDecoded();
  let time = 0n;
  let name = "";
  const attributes: PlainObject = {};
  let count = 0;
  let dropped = 0;
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, WIRE.FIXED64, "timeUnixNano");
        time = reader.fixed64();
        break;
      case 2:
        expectWireType(tag, WIRE.LENGTH, "name");
        name = reader.string();
        break;
      case 3:
        readAttribute(reader, tag, attributes, count++);
        break;
      case 4:
        expectWireType(tag, WIRE.VARINT, "droppedAttributesCount");
        dropped = reader.uint32();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  return { name, timeUnixNano: time.toString(), attributes, droppedAttributesCount: dropped };
}

/** Span.Link: trace_id = 1, span_id = 2, trace_state = 3, attributes = 4, dropped = 5, flags = 6. */
function readLink(reader: WireReader, end: number): unknown {
  chargeDecoded();
  let traceId: string | null = null;
  let spanId: string | null = null;
  let traceState = "";
  const attributes: PlainObject = {};
  let count = 0;
  let dropped = 0;
  let flags = 0;
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, WIRE.LENGTH, "traceId");
        traceId = reader.id(16, "traceId");
        break;
      case 2:
        expectWireType(tag, WIRE.LENGTH, "spanId");
        spanId = reader.id(8, "spanId");
        break;
      case 3:
        expectWireType(tag, WIRE.LENGTH, "traceState");
        traceState = reader.string();
        break;
      case 4:
        readAttribute(reader, tag, attributes, count++);
        break;
      case 5:
        expectWireType(tag, WIRE.VARINT, "droppedAttributesCount");
        dropped = reader.uint32();
        break;
      case 6:
        expectWireType(tag, WIRE.FIXED32, "flags");
        flags = reader.fixed32();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  return {
    traceId,
    spanId,
    traceState: traceState === "" ? null : traceState,
    attributes,
    droppedAttributesCount: dropped,
    flags,
  };
}
