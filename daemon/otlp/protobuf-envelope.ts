import { describeAttributes } from "./any-value.js";
import { BatchScopes } from "./batch-scopes.js";
import type { EnvelopeFields } from "./envelope.js";
import { type PlainObject, readAttribute } from "./protobuf-any-value.js";
import { asPayloadError, expectWireType, WIRE, WireReader, within } from "./protobuf-wire.js";
import type { ResourceRecord, ScopeRecord } from "./records.js";

/** Reads one item message (a span or a log record) that ends at `end`. */
type ItemReader = (end: number, resource: number, scope: number) => void;

/** Reads an item (ending at `end`) into its record; `scopes` holds its resource and scope. */
export type RecordReader<T> = (
  reader: WireReader,
  end: number,
  resource: number,
  scope: number,
  scopes: BatchScopes,
) => T;

/**
 * Decodes an OTLP/protobuf export request: its resources, scopes and one record per item.
 * Throws PayloadError naming the field on bad input; wire failures are "invalid protobuf".
 */
export function readRequest<T>(
  body: Buffer,
  fields: EnvelopeFields,
  readRecord: RecordReader<T>,
): { resources: ResourceRecord[]; scopes: ScopeRecord[]; records: T[] } {
  const reader = new WireReader(body);
  const scopes = new BatchScopes();
  const records: T[] = [];
  try {
    readEnvelope(reader, fields, scopes, (end, resource, scope) => {
      records.push(readRecord(reader, end, resource, scope, scopes));
    });
  } catch (error) {
    throw asPayloadError(error);
  }
  return { resources: scopes.resources, scopes: scopes.scopes, records };
}

/**
 * Walks the resource -> scope -> item nesting of an OTLP/protobuf export request, straight
 * from the bytes: the same order and the same resource and scope registration as walkEnvelope
 * (envelope.ts) gives a parsed OTLP/JSON request. In every level the entry's resource or scope
 * (field 1) and schema URL (field 3) may come after its list (field 2), so each level is
 * scanned for them first and its list read second.
 */
function readEnvelope(reader: WireReader, fields: EnvelopeFields, scopes: BatchScopes, readItem: ItemReader): void {
  forEachListed(reader, 0, reader.length, 1, fields.resources, (end) =>
    readResourceEntry(reader, end, fields, scopes, readItem),
  );
}

/** Where an entry's field 1 message lies (-1 when absent) and its schema URL. */
interface EntryHead {
  start: number;
  end: number;
  schemaUrl: string | null;
}

function readHead(reader: WireReader, end: number, headName: string): EntryHead {
  const head: EntryHead = { start: -1, end: -1, schemaUrl: null };
  while (reader.pos < end) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 1) {
      expectWireType(tag, WIRE.LENGTH, headName);
      head.end = reader.end();
      head.start = reader.pos;
      reader.seek(head.end);
    } else if (field === 3) {
      expectWireType(tag, WIRE.LENGTH, "schemaUrl");
      const url = reader.string();
      head.schemaUrl = url === "" ? null : url;
    } else {
      reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  return head;
}

/** Calls `each` with the end of every element of repeated `field` in the message from `start` to `end`. */
function forEachListed(
  reader: WireReader,
  start: number,
  end: number,
  field: number,
  listName: string,
  each: (itemEnd: number) => void,
): void {
  reader.seek(start);
  let i = 0;
  while (reader.pos < end) {
    const tag = reader.tag();
    if (tag >>> 3 !== field) {
      reader.skip(tag);
      continue;
    }
    try {
      expectWireType(tag, WIRE.LENGTH, "");
      const itemEnd = reader.end();
      each(itemEnd);
      reader.expectEnd(itemEnd);
    } catch (error) {
      throw within(error, `${listName}[${i}]`);
    }
    i++;
  }
}

function readResourceEntry(
  reader: WireReader,
  end: number,
  fields: EnvelopeFields,
  scopes: BatchScopes,
  readItem: ItemReader,
): void {
  const start = reader.pos;
  const head = readHead(reader, end, "resource");
  let resource: number;
  try {
    resource = readResource(reader, head, scopes);
  } catch (error) {
    throw within(error, "resource");
  }
  forEachListed(reader, start, end, 2, fields.scopes, (scopeEnd) => {
    const scopeStart = reader.pos;
    const scopeHead = readHead(reader, scopeEnd, "scope");
    let scope: number;
    try {
      scope = readScope(reader, scopeHead, scopes);
    } catch (error) {
      throw within(error, "scope");
    }
    forEachListed(reader, scopeStart, scopeEnd, 2, fields.items, (itemEnd) => readItem(itemEnd, resource, scope));
  });
}

/** Resource: attributes = 1, dropped_attributes_count = 2. */
function readResource(reader: WireReader, head: EntryHead, scopes: BatchScopes): number {
  const attributes: PlainObject = {};
  let dropped = 0;
  if (head.start >= 0) {
    reader.seek(head.start);
    let count = 0;
    while (reader.pos < head.end) {
      const tag = reader.tag();
      const field = tag >>> 3;
      if (field === 1) readAttribute(reader, tag, attributes, count++);
      else if (field === 2) {
        expectWireType(tag, WIRE.VARINT, "droppedAttributesCount");
        dropped = reader.uint32();
      } else reader.skip(tag);
    }
    reader.expectEnd(head.end);
  }
  return scopes.resource(describeAttributes(attributes), dropped, head.schemaUrl);
}

/** InstrumentationScope: name = 1, version = 2, attributes = 3, dropped_attributes_count = 4. */
function readScope(reader: WireReader, head: EntryHead, scopes: BatchScopes): number {
  const attributes: PlainObject = {};
  let name = "";
  let version = "";
  let dropped = 0;
  if (head.start >= 0) {
    reader.seek(head.start);
    let count = 0;
    while (reader.pos < head.end) {
      const tag = reader.tag();
      switch (tag >>> 3) {
        case 1:
          expectWireType(tag, WIRE.LENGTH, "name");
          name = reader.string();
          break;
        case 2:
          expectWireType(tag, WIRE.LENGTH, "version");
          version = reader.string();
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
    reader.expectEnd(head.end);
  }
  return scopes.scope(name, version === "" ? null : version, describeAttributes(attributes), dropped, head.schemaUrl);
}
