import { describeAttributes, type PlainValue } from "./any-value.js";
import { logRecordHash, nonZero } from "./decode-logs.js";
import { type AttributeHolder, attributesField, type PlainObject, TOP_VALUE } from "./protobuf-any-value.js";
import { type Field, type MessageType, messageField, SCALAR, scalarField } from "./protobuf-descriptor.js";
import { exportRequestType, readRequest, type ScopeEntryState } from "./protobuf-envelope.js";
import { FieldError } from "./protobuf-wire.js";
import type { LogBatch, LogRecordRow } from "./records.js";
import { MAX_STORED_NS, tooLate } from "./stored-time.js";

/**
 * The descriptor of opentelemetry/proto/logs/v1/logs.proto's LogRecord, read straight to log
 * rows: the same rows decodeLogs (decode-logs.ts) gives for the same request sent as OTLP/JSON.
 */

/** A log record as it is read; closed to a LogRecordRow once its fields are in. */
class LogState implements AttributeHolder {
  timeNs = 0n;
  observedNs = 0n;
  severityNumber = 0;
  severityText = "";
  body: PlainValue = null;
  readonly attributes: PlainObject = {};
  dropped = 0;
  flags = 0;
  traceId: string | null = null;
  spanId: string | null = null;
  eventName = "";
  constructor(readonly entry: ScopeEntryState<LogRecordRow>) {}
}

const LOG_RECORD_FIELDS: readonly Field<LogState>[] = [
  scalarField(1, "timeUnixNano", SCALAR.fixed64, (log: LogState, ns: bigint) => {
    log.timeNs = ns;
  }),
  scalarField(2, "severityNumber", SCALAR.uint32, (log: LogState, severity: number) => {
    log.severityNumber = severity;
  }),
  scalarField(3, "severityText", SCALAR.string, (log: LogState, text: string) => {
    log.severityText = text;
  }),
  messageField(5, "body", TOP_VALUE, (log: LogState, body) => {
    log.body = body;
  }),
  attributesField(6),
  scalarField(7, "droppedAttributesCount", SCALAR.uint32, (log: LogState, count: number) => {
    log.dropped = count;
  }),
  scalarField(8, "flags", SCALAR.fixed32, (log: LogState, flags: number) => {
    log.flags = flags;
  }),
  scalarField(9, "traceId", SCALAR.id(16), (log: LogState, id: string | null) => {
    log.traceId = id;
  }),
  scalarField(10, "spanId", SCALAR.id(8), (log: LogState, id: string | null) => {
    log.spanId = id;
  }),
  scalarField(11, "observedTimeUnixNano", SCALAR.fixed64, (log: LogState, ns: bigint) => {
    log.observedNs = ns;
  }),
  scalarField(12, "eventName", SCALAR.string, (log: LogState, name: string) => {
    log.eventName = name;
  }),
];

/** LogRecord: closed to its row (with its hash) once its times are checked. */
const LOG_RECORD: MessageType<LogState, LogRecordRow, ScopeEntryState<LogRecordRow>> = {
  name: "opentelemetry.proto.logs.v1.LogRecord",
  fields: LOG_RECORD_FIELDS,
  open: (entry) => new LogState(entry),
  close(log) {
    const { timeNs, observedNs, entry } = log;
    if (timeNs > MAX_STORED_NS) throw new FieldError("timeUnixNano", tooLate(timeNs));
    if (observedNs > MAX_STORED_NS) throw new FieldError("observedTimeUnixNano", tooLate(observedNs));
    const decoded = describeAttributes(log.attributes);
    const row: LogRecordRow = {
      hash: new Uint8Array(0),
      timeNs,
      observedNs,
      severityNumber: log.severityNumber,
      severityText: log.severityText === "" ? null : log.severityText,
      body: log.body === null ? null : JSON.stringify(log.body),
      attributes: decoded.json,
      indexed: decoded.indexed,
      traceId: nonZero(log.traceId),
      spanId: nonZero(log.spanId),
      flags: log.flags,
      eventName: log.eventName === "" ? null : log.eventName,
      droppedAttributesCount: log.dropped,
      resource: entry.resource,
      scope: entry.scope,
    };
    const known = entry.request.scopes;
    row.hash = logRecordHash(row, known.resources[entry.resource]?.hash ?? "", known.scopes[entry.scope]?.hash ?? "");
    return row;
  },
};

/** opentelemetry/proto/collector/logs/v1/logs_service.proto's ExportLogsServiceRequest. */
export const LOGS_REQUEST = exportRequestType(
  {
    request: "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
    resourceEntry: "opentelemetry.proto.logs.v1.ResourceLogs",
    scopeEntry: "opentelemetry.proto.logs.v1.ScopeLogs",
    resources: "resourceLogs",
    scopes: "scopeLogs",
    items: "logRecords",
  },
  LOG_RECORD,
);

/**
 * Decodes an OTLP/protobuf ExportLogsServiceRequest straight to log rows: the same rows
 * decodeLogs (decode-logs.ts) gives for the same request sent as OTLP/JSON.
 */
export function decodeLogProtobuf(body: Buffer): LogBatch {
  const { resources, scopes, records } = readRequest(body, LOGS_REQUEST);
  return { resources, scopes, logs: records };
}
