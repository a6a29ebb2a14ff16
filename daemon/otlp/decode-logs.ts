import { createHash } from "node:crypto";
import { decodeAttributes, toPlainValue } from "./any-value.js";
import { enumValue, optionalString, ParsedScopes } from "./batch-scopes.js";
import { chargeDecoded, RECORD_UNITS } from "./decode-allowance.js";
import { type EnvelopeFields, walkEnvelope } from "./envelope.js";
import type { LogBatch, LogRecordRow } from "./records.js";
import { storedTime } from "./stored-time.js";
import type { WireCodec } from "./wire-codec.js";

const SEVERITY_NAMES: Record<string, number> = Object.fromEntries(
  [
    "UNSPECIFIED",
    "TRACE",
    "TRACE2",
    "TRACE3",
    "TRACE4",
    "DEBUG",
    "DEBUG2",
    "DEBUG3",
    "DEBUG4",
    "INFO",
    "INFO2",
    "INFO3",
    "INFO4",
    "WARN",
    "WARN2",
    "WARN3",
    "WARN4",
    "ERROR",
    "ERROR2",
    "ERROR3",
    "ERROR4",
    "FATAL",
    "FATAL2",
    "FATAL3",
    "FATAL4",
  ].map((name, number) => [`SEVERITY_NUMBER_${name}`, number]),
);

const LOG_FIELDS: EnvelopeFields = { resources: "resourceLogs", scopes: "scopeLogs", items: "logRecords" };

interface LogRecord {
  timeUnixNano?: unknown;
  observedTimeUnixNano?: unknown;
  severityNumber?: unknown;
  severityText?: unknown;
  body?: unknown;
  attributes?: unknown;
  droppedAttributesCount?: unknown;
  flags?: unknown;
  traceId?: unknown;
  spanId?: unknown;
  eventName?: unknown;
}

/** All-zero ids mean "not set" for logs. */
export function nonZero(id: string | null): string | null {
  return id === null || /^0+$/.test(id) ? null : id;
}

/** Decodes an ExportLogsServiceRequest (already parsed from JSON or protobuf) to log rows. */
export function decodeLogs(request: unknown, codec: WireCodec): LogBatch {
  const scopes = new ParsedScopes(codec);
  const logs: LogRecordRow[] = [];
  walkEnvelope(request, LOG_FIELDS, scopes, (item, { resource, scope, path }) => {
    const resourceHash = scopes.resources[resource]?.hash ?? "";
    const scopeHash = scopes.scopes[scope]?.hash ?? "";
    chargeDecoded(RECORD_UNITS);
    logs.push(decodeLog(item as LogRecord, codec, path, resource, scope, resourceHash, scopeHash));
  });
  return { resources: scopes.resources, scopes: scopes.scopes, logs };
}

function decodeLog(
  log: LogRecord,
  codec: WireCodec,
  path: string,
  resource: number,
  scope: number,
  resourceHash: string,
  scopeHash: string,
): LogRecordRow {
  const body = log.body == null ? null : toPlainValue(log.body, codec, `${path}.body`);
  const attributes = decodeAttributes(log.attributes, codec, `${path}.attributes`);
  const row: LogRecordRow = {
    hash: new Uint8Array(0),
    timeNs: storedTime(codec, log.timeUnixNano, `${path}.timeUnixNano`),
    observedNs: storedTime(codec, log.observedTimeUnixNano, `${path}.observedTimeUnixNano`),
    severityNumber: enumValue(log.severityNumber, SEVERITY_NAMES, codec, `${path}.severityNumber`),
    severityText: optionalString(log.severityText, `${path}.severityText`),
    body: body === null ? null : JSON.stringify(body),
    attributes: attributes.json,
    indexed: attributes.indexed,
    traceId: nonZero(codec.id(log.traceId, 16, `${path}.traceId`)),
    spanId: nonZero(codec.id(log.spanId, 8, `${path}.spanId`)),
    flags: codec.uint32(log.flags, `${path}.flags`),
    eventName: optionalString(log.eventName, `${path}.eventName`),
    droppedAttributesCount: codec.uint32(log.droppedAttributesCount, `${path}.droppedAttributesCount`),
    resource,
    scope,
  };
  row.hash = logRecordHash(row, resourceHash, scopeHash);
  return row;
}

/** Identical records (with their resource and scope) hash alike, which makes resends idempotent. */
export function logRecordHash(row: LogRecordRow, resourceHash: string, scopeHash: string): Uint8Array {
  return createHash("sha1")
    .update(
      [
        resourceHash,
        scopeHash,
        row.timeNs,
        row.observedNs,
        row.severityNumber,
        row.severityText ?? "",
        row.body ?? "",
        row.attributes,
        row.traceId ?? "",
        row.spanId ?? "",
        row.flags,
        row.eventName ?? "",
        row.droppedAttributesCount,
      ].join("\u0000"),
    )
    .digest();
}
