import type { LogBatch, LogRecordRow, ResourceRecord, ScopeRecord, SpanBatch, SpanRecord } from "../otlp/records.js";

/**
 * Decoded batches cross from the decoder thread to the writer thread by structured clone,
 * which rebuilds every object on the receiving side property by property, and the receiving
 * side is the writer, the busiest thread. Packed as flat arrays of fields a batch clones in
 * about half the time, and each attribute key crosses once per batch instead of once per
 * record (so the writer also hashes each key once). Unpacking builds the records again with
 * object literals, which is cheap.
 */
export interface PackedBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  /** The attribute keys the index entries name, each once. */
  keys: string[];
  /** The records' fields, SPAN_FIELDS or LOG_FIELDS per record. */
  fields: unknown[];
  /** Per record: the number of index entries, then [key index, value text] per entry. */
  indexed: (number | string)[];
}

export type PackedSpanBatch = PackedBatch;
export type PackedLogBatch = PackedBatch;

const SPAN_FIELDS = 19;
const LOG_FIELDS = 14;

class KeyTable {
  readonly keys: string[] = [];
  private readonly index = new Map<string, number>();
  of(key: string): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.keys.length;
      this.keys.push(key);
      this.index.set(key, i);
    }
    return i;
  }
}

function packIndexed(indexed: string[], table: KeyTable, out: (number | string)[]): void {
  out.push(indexed.length / 2);
  for (let i = 0; i < indexed.length; i += 2) out.push(table.of(indexed[i] as string), indexed[i + 1] as string);
}

/** Reads one record's index entries from `packed` at `at`; returns them and where the next record's start. */
function unpackIndexed(packed: (number | string)[], at: number, keys: string[]): [string[], number] {
  const entries = packed[at] as number;
  const indexed = new Array<string>(entries * 2);
  for (let e = 0, p = at + 1; e < entries; e++, p += 2) {
    indexed[2 * e] = keys[packed[p] as number] as string;
    indexed[2 * e + 1] = packed[p + 1] as string;
  }
  return [indexed, at + 1 + 2 * entries];
}

export function packedSpanCount(packed: PackedSpanBatch): number {
  return packed.fields.length / SPAN_FIELDS;
}

export function packedLogCount(packed: PackedLogBatch): number {
  return packed.fields.length / LOG_FIELDS;
}

export function packSpans(batch: SpanBatch): PackedSpanBatch {
  const table = new KeyTable();
  const fields: unknown[] = [];
  const indexed: (number | string)[] = [];
  for (const s of batch.spans) {
    fields.push(
      s.traceId,
      s.spanId,
      s.parentSpanId,
      s.traceState,
      s.flags,
      s.name,
      s.kind,
      s.startNs,
      s.endNs,
      s.statusCode,
      s.statusMessage,
      s.attributes,
      s.events,
      s.links,
      s.droppedAttributesCount,
      s.droppedEventsCount,
      s.droppedLinksCount,
      s.resource,
      s.scope,
    );
    packIndexed(s.indexed, table, indexed);
  }
  return { resources: batch.resources, scopes: batch.scopes, keys: table.keys, fields, indexed };
}

export function unpackSpans(packed: PackedSpanBatch): SpanBatch {
  const { fields: f, keys } = packed;
  const spans: SpanRecord[] = new Array(f.length / SPAN_FIELDS);
  let at = 0;
  for (let i = 0, o = 0; i < spans.length; i++, o += SPAN_FIELDS) {
    let indexed: string[];
    [indexed, at] = unpackIndexed(packed.indexed, at, keys);
    spans[i] = {
      traceId: f[o] as string,
      spanId: f[o + 1] as string,
      parentSpanId: f[o + 2] as string | null,
      traceState: f[o + 3] as string | null,
      flags: f[o + 4] as number,
      name: f[o + 5] as string,
      kind: f[o + 6] as number,
      startNs: f[o + 7] as bigint,
      endNs: f[o + 8] as bigint,
      statusCode: f[o + 9] as number,
      statusMessage: f[o + 10] as string | null,
      attributes: f[o + 11] as string,
      indexed,
      events: f[o + 12] as string | null,
      links: f[o + 13] as string | null,
      droppedAttributesCount: f[o + 14] as number,
      droppedEventsCount: f[o + 15] as number,
      droppedLinksCount: f[o + 16] as number,
      resource: f[o + 17] as number,
      scope: f[o + 18] as number,
    };
  }
  return { resources: packed.resources, scopes: packed.scopes, spans };
}

export function packLogs(batch: LogBatch): PackedLogBatch {
  const table = new KeyTable();
  const fields: unknown[] = [];
  const indexed: (number | string)[] = [];
  for (const l of batch.logs) {
    fields.push(
      l.hash,
      l.timeNs,
      l.observedNs,
      l.severityNumber,
      l.severityText,
      l.body,
      l.attributes,
      l.traceId,
      l.spanId,
      l.flags,
      l.eventName,
      l.droppedAttributesCount,
      l.resource,
      l.scope,
    );
    packIndexed(l.indexed, table, indexed);
  }
  return { resources: batch.resources, scopes: batch.scopes, keys: table.keys, fields, indexed };
}

export function unpackLogs(packed: PackedLogBatch): LogBatch {
  const { fields: f, keys } = packed;
  const logs: LogRecordRow[] = new Array(f.length / LOG_FIELDS);
  let at = 0;
  for (let i = 0, o = 0; i < logs.length; i++, o += LOG_FIELDS) {
    let indexed: string[];
    [indexed, at] = unpackIndexed(packed.indexed, at, keys);
    logs[i] = {
      hash: f[o] as Uint8Array,
      timeNs: f[o + 1] as bigint,
      observedNs: f[o + 2] as bigint,
      severityNumber: f[o + 3] as number,
      severityText: f[o + 4] as string | null,
      body: f[o + 5] as string | null,
      attributes: f[o + 6] as string,
      indexed,
      traceId: f[o + 7] as string | null,
      spanId: f[o + 8] as string | null,
      flags: f[o + 9] as number,
      eventName: f[o + 10] as string | null,
      droppedAttributesCount: f[o + 11] as number,
      resource: f[o + 12] as number,
      scope: f[o + 13] as number,
    };
  }
  return { resources: packed.resources, scopes: packed.scopes, logs };
}
