import type { LogBatch, LogRecordRow, ResourceRecord, ScopeRecord, SpanBatch, SpanRecord } from "../otlp/records.js";

/**
 * Decoded batches cross from the decoder thread to the writer thread by structured clone,
 * which rebuilds every object and string on the receiving side, and the receiving side is the
 * writer, the busiest thread. Packed as flat arrays of fields a batch clones in about half the
 * time. Texts that repeat across records (attribute keys and index values, trace ids, parent
 * ids, span names, severity texts) cross once per batch in a string table, and the records
 * refer to them by number: a value such as `GET` or a route is one string however many spans
 * carry it, the index entries clone as numbers, and the writer hashes each text once for its
 * maps. Unpacking builds the records again with object literals, which is cheap.
 */
export interface PackedBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  /** The texts the records refer to by number, each once. */
  strings: string[];
  /** The records' fields, SPAN_FIELDS or LOG_FIELDS per record (some as `strings` indexes). */
  fields: unknown[];
  /** Per record: the number of index entries, then [key, value] per entry as `strings` indexes. */
  indexed: number[];
}

export type PackedSpanBatch = PackedBatch;
export type PackedLogBatch = PackedBatch;

/** Fields per span in `PackedBatch.fields` (the native decoder writes the same layout). */
export const SPAN_FIELDS = 19;
const LOG_FIELDS = 14;

class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  of(text: string): number {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(text);
      this.index.set(text, i);
    }
    return i;
  }
  /** -1 stands for null. */
  ofOptional(text: string | null): number {
    return text === null ? -1 : this.of(text);
  }
}

function optional(strings: string[], at: unknown): string | null {
  return (at as number) < 0 ? null : (strings[at as number] as string);
}

function packIndexed(indexed: string[], table: StringTable, out: number[]): void {
  out.push(indexed.length / 2);
  for (let i = 0; i < indexed.length; i++) out.push(table.of(indexed[i] as string));
}

/** Reads one record's index entries from `packed` at `at`; returns them and where the next record's start. */
function unpackIndexed(packed: number[], at: number, strings: string[]): [string[], number] {
  const length = 2 * (packed[at] as number);
  const indexed = new Array<string>(length);
  for (let i = 0; i < length; i++) indexed[i] = strings[packed[at + 1 + i] as number] as string;
  return [indexed, at + 1 + length];
}

export function packedSpanCount(packed: PackedSpanBatch): number {
  return packed.fields.length / SPAN_FIELDS;
}

export function packedLogCount(packed: PackedLogBatch): number {
  return packed.fields.length / LOG_FIELDS;
}

export function packSpans(batch: SpanBatch): PackedSpanBatch {
  const table = new StringTable();
  const fields: unknown[] = [];
  const indexed: number[] = [];
  for (const s of batch.spans) {
    fields.push(
      table.of(s.traceId),
      s.spanId,
      table.ofOptional(s.parentSpanId),
      s.traceState,
      s.flags,
      table.of(s.name),
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
  return { resources: batch.resources, scopes: batch.scopes, strings: table.strings, fields, indexed };
}

/** Rebuilds a packed batch's records `size` at a time, in order; `build` makes one from its fields at `o`. */
function* unpackSlices<R>(
  packed: PackedBatch,
  width: number,
  size: number,
  build: (f: unknown[], o: number, indexed: string[]) => R,
): Generator<R[]> {
  const { fields, strings } = packed;
  const count = fields.length / width;
  let at = 0;
  for (let from = 0; from < count; from += size) {
    const records: R[] = new Array(Math.min(size, count - from));
    for (let i = 0, o = from * width; i < records.length; i++, o += width) {
      let indexed: string[];
      [indexed, at] = unpackIndexed(packed.indexed, at, strings);
      records[i] = build(fields, o, indexed);
    }
    yield records;
  }
}

/**
 * The spans of a packed batch, rebuilt as records `size` at a time, in order. The writer
 * stores a large request slice by slice, so it holds the records of one slice at a time
 * rather than of the whole request (a 16 MiB body of small spans is half a million records).
 */
export function* unpackSpanSlices(packed: PackedSpanBatch, size: number): Generator<SpanBatch> {
  const { strings } = packed;
  const slices = unpackSlices(
    packed,
    SPAN_FIELDS,
    size,
    (f, o, indexed): SpanRecord => ({
      traceId: strings[f[o] as number] as string,
      spanId: f[o + 1] as string,
      parentSpanId: optional(strings, f[o + 2]),
      traceState: f[o + 3] as string | null,
      flags: f[o + 4] as number,
      name: strings[f[o + 5] as number] as string,
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
    }),
  );
  for (const spans of slices) yield { resources: packed.resources, scopes: packed.scopes, spans };
}

export function packLogs(batch: LogBatch): PackedLogBatch {
  const table = new StringTable();
  const fields: unknown[] = [];
  const indexed: number[] = [];
  for (const l of batch.logs) {
    fields.push(
      l.hash,
      l.timeNs,
      l.observedNs,
      l.severityNumber,
      table.ofOptional(l.severityText),
      l.body,
      l.attributes,
      table.ofOptional(l.traceId),
      l.spanId,
      l.flags,
      l.eventName,
      l.droppedAttributesCount,
      l.resource,
      l.scope,
    );
    packIndexed(l.indexed, table, indexed);
  }
  return { resources: batch.resources, scopes: batch.scopes, strings: table.strings, fields, indexed };
}

/** The log records of a packed batch, rebuilt `size` at a time, in order (see unpackSpanSlices). */
export function* unpackLogSlices(packed: PackedLogBatch, size: number): Generator<LogBatch> {
  const { strings } = packed;
  const slices = unpackSlices(
    packed,
    LOG_FIELDS,
    size,
    (f, o, indexed): LogRecordRow => ({
      hash: f[o] as Uint8Array,
      timeNs: f[o + 1] as bigint,
      observedNs: f[o + 2] as bigint,
      severityNumber: f[o + 3] as number,
      severityText: optional(strings, f[o + 4]),
      body: f[o + 5] as string | null,
      attributes: f[o + 6] as string,
      indexed,
      traceId: optional(strings, f[o + 7]),
      spanId: f[o + 8] as string | null,
      flags: f[o + 9] as number,
      eventName: f[o + 10] as string | null,
      droppedAttributesCount: f[o + 11] as number,
      resource: f[o + 12] as number,
      scope: f[o + 13] as number,
    }),
  );
  for (const logs of slices) yield { resources: packed.resources, scopes: packed.scopes, logs };
}
