import { describeAttributes, type PlainValue } from "./any-value.js";
import { chargeDecoded, RECORD_UNITS } from "./decode-allowance.js";
import { logRecordHash, nonZero } from "./decode-logs.js";
import { type PlainObject, readAttribute, readTopValue } from "./protobuf-any-value.js";
import { readRequest } from "./protobuf-envelope.js";
import { expectWireType, FieldError, readMessage, WIRE, type WireReader } from "./protobuf-wire.js";
import type { LogBatch, LogRecordRow } from "./records.js";
import { MAX_STORED_NS, tooLate } from "./stored-time.js";

const LOG_FIELDS = { resources: "resourceLogs", scopes: "scopeLogs", items: "logRecords" } as const;

/**
 * Decodes an OTLP/protobuf ExportLogsServiceRequest straight to log rows: the same rows
 * decodeLogs (decode-logs.ts) gives for the same request sent as OTLP/JSON.
 */
export function decodeLogProtobuf(body: Buffer): LogBatch {
  const { resources, scopes, records } = readRequest(body, LOG_FIELDS, (reader, end, resource, scope, known) => {
    const row = readLogRecord(reader, end, resource, scope);
    row.hash = logRecordHash(row, known.resources[resource]?.hash ?? "", known.scopes[scope]?.hash ?? "");
    return row;
  });
  return { resources, scopes, logs: records };
}

/**
 * LogRecord: time = 1, severity_number = 2, severity_text = 3, body = 5, attributes = 6,
 * dropped_attributes_count = 7, flags = 8, trace_id = 9, span_id = 10, observed_time = 11,
 * event_name = 12.
 */
function readLogRecord(reader: WireReader, end: number, resource: number, scope: number): LogRecordRow {
  chargeDecoded(RECORD_UNITS);
  let timeNs = 0n;
  let observedNs = 0n;
  let severityNumber = 0;
  let severityText = "";
  let body: PlainValue = null;
  const attributes: PlainObject = {};
  let attributeCount = 0;
  let dropped = 0;
  let flags = 0;
  let traceId: string | null = null;
  let spanId: string | null = null;
  let eventName = "";
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, WIRE.FIXED64, "timeUnixNano");
        timeNs = reader.fixed64();
        break;
      case 2:
        expectWireType(tag, WIRE.VARINT, "severityNumber");
        severityNumber = reader.uint32();
        break;
      case 3:
        expectWireType(tag, WIRE.LENGTH, "severityText");
        severityText = reader.string();
        break;
      case 5:
        body = readMessage(reader, tag, "body", readTopValue);
        break;
      case 6:
        readAttribute(reader, tag, attributes, attributeCount++);
        break;
      case 7:
        expectWireType(tag, WIRE.VARINT, "droppedAttributesCount");
        dropped = reader.uint32();
        break;
      case 8:
        expectWireType(tag, WIRE.FIXED32, "flags");
        flags = reader.fixed32();
        break;
      case 9:
        expectWireType(tag, WIRE.LENGTH, "traceId");
        traceId = reader.id(16, "traceId");
        break;
      case 10:
        expectWireType(tag, WIRE.LENGTH, "spanId");
        spanId = reader.id(8, "spanId");
        break;
      case 11:
        expectWireType(tag, WIRE.FIXED64, "observedTimeUnixNano");
        observedNs = reader.fixed64();
        break;
      case 12:
        expectWireType(tag, WIRE.LENGTH, "eventName");
        eventName = reader.string();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  if (timeNs > MAX_STORED_NS) throw new FieldError("timeUnixNano", tooLate(timeNs));
  if (observedNs > MAX_STORED_NS) throw new FieldError("observedTimeUnixNano", tooLate(observedNs));
  const decoded = describeAttributes(attributes);
  return {
    hash: new Uint8Array(0),
    timeNs,
    observedNs,
    severityNumber,
    severityText: severityText === "" ? null : severityText,
    body: body === null ? null : JSON.stringify(body),
    attributes: decoded.json,
    indexed: decoded.indexed,
    traceId: nonZero(traceId),
    spanId: nonZero(spanId),
    flags,
    eventName: eventName === "" ? null : eventName,
    droppedAttributesCount: dropped,
    resource,
    scope,
  };
}
