import { describeAttributes } from "./any-value.js";
import { BatchScopes } from "./batch-scopes.js";
import { RECORD_UNITS } from "./decode-allowance.js";
import type { EnvelopeFields } from "./envelope.js";
import { type AttributeHolder, attributesField, type PlainObject } from "./protobuf-any-value.js";
import { type MessageType, messageField, repeatedMessageField, SCALAR, scalarField } from "./protobuf-descriptor.js";
import { readMessage } from "./protobuf-message-reader.js";
import { asPayloadError, WireReader } from "./protobuf-wire.js";
import type { ResourceRecord, ScopeRecord } from "./records.js";

/**
 * The resource -> scope -> item nesting every OTLP export request shares (ResourceSpans and
 * ScopeSpans, ResourceLogs and ScopeLogs, ...), as descriptors: a signal gives its field names
 * and its item's message type (Span, LogRecord). It registers resources and scopes in the same
 * order as walkEnvelope (envelope.ts) does for a parsed OTLP/JSON request. In every level the
 * entry's resource or scope (field 1) and schema URL (field 3) may come after its list (field 2):
 * those are deferred fields, read after the entry's other fields.
 */

/** What a request's decode collects: its distinct resources and scopes, and one record per item. */
export interface RequestState<T> {
  readonly scopes: BatchScopes;
  readonly records: T[];
}

interface ResourceEntryState<T> {
  readonly request: RequestState<T>;
  schemaUrl: string | null;
  resource: number;
}

/** Where an item (a span, a log record) is read: its request, resource and scope. */
export interface ScopeEntryState<T> {
  readonly request: RequestState<T>;
  readonly resource: number;
  schemaUrl: string | null;
  scope: number;
}

interface HeadState<E> extends AttributeHolder {
  readonly entry: E;
  dropped: number;
}

interface ScopeHeadState extends HeadState<ScopeEntryState<unknown>> {
  name: string;
  version: string;
}

function setSchemaUrl(state: { schemaUrl: string | null }, url: string): void {
  state.schemaUrl = url === "" ? null : url;
}

function setDropped(state: { dropped: number }, dropped: number): void {
  state.dropped = dropped;
}

/** Resource: attributes = 1, dropped_attributes_count = 2; closes to its index in the request's resources. */
const RESOURCE: MessageType<HeadState<ResourceEntryState<unknown>>, number, ResourceEntryState<unknown>> = {
  name: "opentelemetry.proto.resource.v1.Resource",
  fields: [attributesField(1), scalarField(2, "droppedAttributesCount", SCALAR.uint32, setDropped)],
  open: (entry) => ({ entry, attributes: {} as PlainObject, dropped: 0 }),
  close: (state) =>
    state.entry.request.scopes.resource(describeAttributes(state.attributes), state.dropped, state.entry.schemaUrl),
};

/** InstrumentationScope: name = 1, version = 2, attributes = 3, dropped = 4; closes to its index. */
const SCOPE: MessageType<ScopeHeadState, number, ScopeEntryState<unknown>> = {
  name: "opentelemetry.proto.common.v1.InstrumentationScope",
  fields: [
    scalarField(1, "name", SCALAR.string, (state: ScopeHeadState, name: string) => {
      state.name = name;
    }),
    scalarField(2, "version", SCALAR.string, (state: ScopeHeadState, version: string) => {
      state.version = version;
    }),
    attributesField(3),
    scalarField(4, "droppedAttributesCount", SCALAR.uint32, setDropped),
  ],
  open: (entry) => ({ entry, name: "", version: "", attributes: {} as PlainObject, dropped: 0 }),
  close: (state) =>
    state.entry.request.scopes.scope(
      state.name,
      state.version === "" ? null : state.version,
      describeAttributes(state.attributes),
      state.dropped,
      state.entry.schemaUrl,
    ),
};

/**
 * The export request type of one signal: `ExportXServiceRequest { repeated ResourceX = 1 }`,
 * `ResourceX { Resource resource = 1; repeated ScopeX = 2; string schema_url = 3 }`,
 * `ScopeX { InstrumentationScope scope = 1; repeated Item = 2; string schema_url = 3 }`. Each item
 * is charged RECORD_UNITS of the decode allowance.
 */
export function exportRequestType<T>(
  names: EnvelopeFields & { request: string; resourceEntry: string; scopeEntry: string },
  item: MessageType<unknown, T, ScopeEntryState<T>>,
): MessageType<RequestState<T>, RequestState<T>, null> {
  const scopeEntry: MessageType<ScopeEntryState<T>, void, ResourceEntryState<T>> = {
    name: names.scopeEntry,
    fields: [
      messageField(
        1,
        "scope",
        SCOPE,
        (state: ScopeEntryState<T>, scope) => {
          state.scope = scope;
        },
        { deferred: true },
      ),
      repeatedMessageField(
        2,
        names.items,
        item,
        (state: ScopeEntryState<T>, record) => {
          state.request.records.push(record);
        },
        { deferred: true, charge: RECORD_UNITS },
      ),
      scalarField(3, "schemaUrl", SCALAR.string, setSchemaUrl),
    ],
    open: (entry) => ({ request: entry.request, resource: entry.resource, schemaUrl: null, scope: -1 }),
    close: () => undefined,
  };
  const resourceEntry: MessageType<ResourceEntryState<T>, void, RequestState<T>> = {
    name: names.resourceEntry,
    fields: [
      messageField(
        1,
        "resource",
        RESOURCE,
        (state: ResourceEntryState<T>, resource) => {
          state.resource = resource;
        },
        { deferred: true },
      ),
      repeatedMessageField(2, names.scopes, scopeEntry, () => {}, { deferred: true }),
      scalarField(3, "schemaUrl", SCALAR.string, setSchemaUrl),
    ],
    open: (request) => ({ request, schemaUrl: null, resource: -1 }),
    close: () => undefined,
  };
  return {
    name: names.request,
    fields: [repeatedMessageField(1, names.resources, resourceEntry, () => {})],
    open: () => ({ scopes: new BatchScopes(), records: [] }),
    close: (state) => state,
  };
}

/**
 * Decodes an OTLP/protobuf export request of `type`: its resources, scopes and one record per
 * item. Throws PayloadError naming the field on bad input; wire failures are "invalid protobuf".
 */
export function readRequest<T>(
  body: Buffer,
  type: MessageType<RequestState<T>, RequestState<T>, null>,
): { resources: ResourceRecord[]; scopes: ScopeRecord[]; records: T[] } {
  let request: RequestState<T>;
  try {
    request = readMessage(new WireReader(body), type, null);
  } catch (error) {
    throw asPayloadError(error);
  }
  return { resources: request.scopes.resources, scopes: request.scopes.scopes, records: request.records };
}
