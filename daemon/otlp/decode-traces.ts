import { decodeAttributes, listOf, toPlainObject } from "./any-value.js";
import { enumValue, optionalString, ParsedScopes } from "./batch-scopes.js";
import { chargeDecoded, RECORD_UNITS } from "./decode-allowance.js";
import { type EnvelopeFields, requireObject, walkEnvelope } from "./envelope.js";
import { PayloadError } from "./payload-error.js";
import type { SpanBatch, SpanRecord } from "./records.js";
import { storedTime } from "./stored-time.js";
import type { WireCodec } from "./wire-codec.js";

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

const TRACE_FIELDS: EnvelopeFields = { resources: "resourceSpans", scopes: "scopeSpans", items: "spans" };

const STATUS_CODES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

// Shapes of the OTLP messages as both wire forms present them (camelCase field names).
interface Span {
  traceId?: unknown;
  spanId?: unknown;
  traceState?: unknown;
  parentSpanId?: unknown;
  flags?: unknown;
  name?: unknown;
  kind?: unknown;
  startTimeUnixNano?: unknown;
  endTimeUnixNano?: unknown;
  attributes?: unknown;
  droppedAttributesCount?: unknown;
  events?: unknown;
  droppedEventsCount?: unknown;
  links?: unknown;
  droppedLinksCount?: unknown;
  status?: { code?: unknown; message?: unknown } | null;
}

interface SpanEvent {
  timeUnixNano?: unknown;
  name?: unknown;
  attributes?: unknown;
  droppedAttributesCount?: unknown;
}

interface SpanLink {
  traceId?: unknown;
  spanId?: unknown;
  traceState?: unknown;
  attributes?: unknown;
  droppedAttributesCount?: unknown;
  flags?: unknown;
}

/** Decodes an ExportTraceServiceRequest (already parsed from JSON or protobuf) to span records. */
export function decodeTraces(request: unknown, codec: WireCodec): SpanBatch {
  const scopes = new ParsedScopes(codec);
  const spans: SpanRecord[] = [];
  walkEnvelope(request, TRACE_FIELDS, scopes, (item, { resource, scope, path }) => {
    chargeDecoded(RECORD_UNITS);
    spans.push(decodeSpan(item as Span, codec, path, resource, scope));
  });
  return { resources: scopes.resources, scopes: scopes.scopes, spans };
}

function decodeSpan(span: Span, codec: WireCodec, path: string, resource: number, scope: number): SpanRecord {
  const traceId = codec.id(span.traceId, 16, `${path}.traceId`);
  const spanId = codec.id(span.spanId, 8, `${path}.spanId`);
  if (traceId === null || /^0+$/.test(traceId))
    throw new PayloadError(`${path}.traceId: a span needs a non-zero trace id`);
  if (spanId === null || /^0+$/.test(spanId)) throw new PayloadError(`${path}.spanId: a span needs a non-zero span id`);
  const parentSpanId = codec.id(span.parentSpanId, 8, `${path}.parentSpanId`);
  const attributes = decodeAttributes(span.attributes, codec, `${path}.attributes`);
  const status =
    span.status == null ? null : requireObject<{ code?: unknown; message?: unknown }>(span.status, `${path}.status`);
  const startNs = storedTime(codec, span.startTimeUnixNano, `${path}.startTimeUnixNano`);
  const endNs = storedTime(codec, span.endTimeUnixNano, `${path}.endTimeUnixNano`);
  const name = span.name == null ? "" : span.name;
  if (typeof name !== "string") throw new PayloadError(`${path}.name: expected a string`);
  return {
    traceId,
    spanId,
    parentSpanId: parentSpanId === null || /^0+$/.test(parentSpanId) ? null : parentSpanId,
    traceState: optionalString(span.traceState, `${path}.traceState`),
    flags: codec.uint32(span.flags, `${path}.flags`),
    name,
    kind: enumValue(span.kind, SPAN_KINDS, codec, `${path}.kind`),
    startNs,
    endNs,
    statusCode: status ? enumValue(status.code, STATUS_CODES, codec, `${path}.status.code`) : 0,
    statusMessage: status ? optionalString(status.message, `${path}.status.message`) : null,
    attributes: attributes.json,
    indexed: attributes.indexed,
    events: decodeEvents(span.events, codec, `${path}.events`),
    links: decodeLinks(span.links, codec, `${path}.links`),
    droppedAttributesCount: codec.uint32(span.droppedAttributesCount, `${path}.droppedAttributesCount`),
    droppedEventsCount: codec.uint32(span.droppedEventsCount, `${path}.droppedEventsCount`),
    droppedLinksCount: codec.uint32(span.droppedLinksCount, `${path}.droppedLinksCount`),
    resource,
    scope,
  };
}

function decodeEvents(value: unknown, codec: WireCodec, path: string): string | null {
  const events = listOf(value, path);
  if (events.length === 0) return null;
  chargeDecoded(events.length);
  return JSON.stringify(
    events.map((item, i) => {
      const event = requireObject<SpanEvent>(item, `${path}[${i}]`);
      const name = optionalString(event.name, `${path}[${i}].name`) ?? "";
      return {
        name,
        timeUnixNano: codec.uint64(event.timeUnixNano, `${path}[${i}].timeUnixNano`).toString(),
        attributes: toPlainObject(
          listOf(event.attributes, `${path}[${i}].attributes`),
          codec,
          `${path}[${i}].attributes`,
        ),
        droppedAttributesCount: codec.uint32(event.droppedAttributesCount, `${path}[${i}].droppedAttributesCount`),
      };
    }),
  );
}

function decodeLinks(value: unknown, codec: WireCodec, path: string): string | null {
  const links = listOf(value, path);
  if (links.length === 0) return null;
  chargeDecoded(links.length);
  return JSON.stringify(
    links.map((item, i) => {
      const link = requireObject<SpanLink>(item, `${path}[${i}]`);
      return {
        traceId: codec.id(link.traceId, 16, `${path}[${i}].traceId`),
        spanId: codec.id(link.spanId, 8, `${path}[${i}].spanId`),
        traceState: optionalString(link.traceState, `${path}[${i}].traceState`),
        attributes: toPlainObject(
          listOf(link.attributes, `${path}[${i}].attributes`),
          codec,
          `${path}[${i}].attributes`,
        ),
        droppedAttributesCount: codec.uint32(link.droppedAttributesCount, `${path}[${i}].droppedAttributesCount`),
        flags: codec.uint32(link.flags, `${path}[${i}].flags`),
      };
    }),
  );
}
