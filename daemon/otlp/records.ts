/**
 * The normalized records the decoders produce and the store writes. Both wire forms
 * (OTLP/JSON and OTLP/protobuf) decode to exactly these shapes.
 *
 * JSON-typed fields (`attributes`, `events`, `links`, `body`) are already serialized here,
 * on the HTTP thread, so the writer thread only binds values.
 */

export interface ResourceRecord {
  /** Content hash (hex) of the resource: attributes, dropped count and schema URL. */
  hash: string;
  serviceName: string;
  /** JSON object of attribute key to value. */
  attributes: string;
  droppedAttributesCount: number;
  schemaUrl: string | null;
}

export interface ScopeRecord {
  hash: string;
  name: string;
  version: string | null;
  attributes: string;
  droppedAttributesCount: number;
  schemaUrl: string | null;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  traceState: string | null;
  flags: number;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  statusCode: number;
  statusMessage: string | null;
  attributes: string;
  /** Flat [key, value, key, value, ...] list of the attribute index entries. */
  indexed: string[];
  events: string | null;
  links: string | null;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
  /** Index into the batch's `resources`. */
  resource: number;
  /** Index into the batch's `scopes`. */
  scope: number;
}

export interface LogRecordRow {
  /** Content hash (20 bytes): identical records sent twice are stored once. */
  hash: Uint8Array;
  timeNs: bigint;
  observedNs: bigint;
  severityNumber: number;
  severityText: string | null;
  /** JSON of the body AnyValue, or null when the body is empty. */
  body: string | null;
  attributes: string;
  indexed: string[];
  traceId: string | null;
  spanId: string | null;
  flags: number;
  eventName: string | null;
  droppedAttributesCount: number;
  resource: number;
  scope: number;
}

export interface SpanBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  spans: SpanRecord[];
}

export interface LogBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  logs: LogRecordRow[];
}

export const UNKNOWN_SERVICE = "unknown_service";
