import type { LogBatch, LogRecordRow, ResourceRecord, ScopeRecord, SpanBatch, SpanRecord } from "../otlp/records.js";
import { type Column, type CoversEvery, recordCodec, StringTable } from "./packed-layout.js";
import type { PackedMetricPoints } from "./packed-metric-points.js";

/**
 * Decoded batches cross from the decoder thread to the writer thread by structured clone,
 * which rebuilds every object and string on the receiving side, and the receiving side is the
 * writer, the busiest thread. Packed as flat arrays of fields a batch clones in about half the
 * time. Texts that repeat across records (attribute keys and index values, trace ids, parent
 * ids, span names, severity texts) cross once per batch in a string table, and the records
 * refer to them by number: a value such as `GET` or a route is one string however many spans
 * carry it, the index entries clone as numbers, and the writer hashes each text once for its
 * maps. Unpacking builds the records again with object literals, which is cheap. Metric points
 * cross as columns instead (packed-metric-points.ts).
 */
export interface PackedBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  /** The texts the records refer to by number, each once. */
  strings: string[];
  /** The records' fields, in their layout's order (SPAN_LAYOUT, LOG_LAYOUT), some as `strings` indexes. */
  fields: unknown[];
  /** Per record: the number of index entries, then [key, value] per entry as `strings` indexes. */
  indexed: number[];
}

declare const recordsBrand: unique symbol;

/**
 * A packed batch of one kind of record. The brand exists for the compiler only (nothing more
 * crosses between threads): a batch of log records cannot be handed where spans are expected.
 */
export type PackedBatchOf<Records extends string> = (Records extends "points" ? PackedMetricPoints : PackedBatch) & {
  readonly [recordsBrand]: Records;
};
export type PackedSpanBatch = PackedBatchOf<"spans">;
export type PackedLogBatch = PackedBatchOf<"logs">;
export type PackedMetricBatch = PackedBatchOf<"points">;

/**
 * The span layout: the native decoder (native/otlp-json/trace-batch.h) writes the same one,
 * which test/unit/store/packed-layout.test.ts checks column by column.
 */
export const SPAN_LAYOUT = [
  { field: "traceId", crossing: "text" },
  { field: "spanId", crossing: "value" },
  { field: "parentSpanId", crossing: "optional-text" },
  { field: "traceState", crossing: "value" },
  { field: "flags", crossing: "value" },
  { field: "name", crossing: "text" },
  { field: "kind", crossing: "value" },
  { field: "startNs", crossing: "value" },
  { field: "endNs", crossing: "value" },
  { field: "statusCode", crossing: "value" },
  { field: "statusMessage", crossing: "value" },
  { field: "attributes", crossing: "value" },
  { field: "events", crossing: "value" },
  { field: "links", crossing: "value" },
  { field: "droppedAttributesCount", crossing: "value" },
  { field: "droppedEventsCount", crossing: "value" },
  { field: "droppedLinksCount", crossing: "value" },
  { field: "resource", crossing: "value" },
  { field: "scope", crossing: "value" },
] as const satisfies readonly Column<SpanRecord>[];

export const LOG_LAYOUT = [
  { field: "hash", crossing: "value" },
  { field: "timeNs", crossing: "value" },
  { field: "observedNs", crossing: "value" },
  { field: "severityNumber", crossing: "value" },
  { field: "severityText", crossing: "optional-text" },
  { field: "body", crossing: "value" },
  { field: "attributes", crossing: "value" },
  { field: "traceId", crossing: "optional-text" },
  { field: "spanId", crossing: "value" },
  { field: "flags", crossing: "value" },
  { field: "eventName", crossing: "value" },
  { field: "droppedAttributesCount", crossing: "value" },
  { field: "resource", crossing: "value" },
  { field: "scope", crossing: "value" },
] as const satisfies readonly Column<LogRecordRow>[];

// Compile errors naming any record field a layout leaves out.
const spansCovered: CoversEvery<SpanRecord, typeof SPAN_LAYOUT> = true;
const logsCovered: CoversEvery<LogRecordRow, typeof LOG_LAYOUT> = true;
void [spansCovered, logsCovered];

export const SPAN_CODEC = recordCodec<SpanRecord, typeof SPAN_LAYOUT>(SPAN_LAYOUT);
export const LOG_CODEC = recordCodec<LogRecordRow, typeof LOG_LAYOUT>(LOG_LAYOUT);

/** Fields per span in `PackedBatch.fields` (the native decoder writes the same layout). */
export const SPAN_FIELDS = SPAN_CODEC.width;

/** A batch a decoder packed itself in SPAN_LAYOUT (the native one); its layout test vouches for it. */
export function asPackedSpans(batch: PackedBatch): PackedSpanBatch {
  return batch as PackedSpanBatch;
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
  return packed.fields.length / SPAN_CODEC.width;
}

export function packedLogCount(packed: PackedLogBatch): number {
  return packed.fields.length / LOG_CODEC.width;
}

function pack<R extends { indexed: string[] }, K extends "spans" | "logs">(
  records: readonly R[],
  codec: { pack: (record: R, table: StringTable, fields: unknown[]) => void },
  scopes: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
): PackedBatchOf<K> {
  const table = new StringTable();
  const fields: unknown[] = [];
  const indexed: number[] = [];
  for (const record of records) {
    codec.pack(record, table, fields);
    packIndexed(record.indexed, table, indexed);
  }
  const batch: PackedBatch = {
    resources: scopes.resources,
    scopes: scopes.scopes,
    strings: table.strings,
    fields,
    indexed,
  };
  return batch as PackedBatchOf<K>;
}

export function packSpans(batch: SpanBatch): PackedSpanBatch {
  return pack<SpanRecord, "spans">(batch.spans, SPAN_CODEC, batch);
}

export function packLogs(batch: LogBatch): PackedLogBatch {
  return pack<LogRecordRow, "logs">(batch.logs, LOG_CODEC, batch);
}

/** Rebuilds a packed batch's records `size` at a time, in order. */
function* unpackSlices<R>(
  packed: PackedBatch,
  codec: { width: number; build: (f: unknown[], o: number, strings: string[], indexed: string[]) => R },
  size: number,
): Generator<R[]> {
  const { fields, strings } = packed;
  const { width, build } = codec;
  const count = fields.length / width;
  let at = 0;
  for (let from = 0; from < count; from += size) {
    const records: R[] = new Array(Math.min(size, count - from));
    for (let i = 0, o = from * width; i < records.length; i++, o += width) {
      const [indexed, next] = unpackIndexed(packed.indexed, at, strings);
      at = next;
      records[i] = build(fields, o, strings, indexed);
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
  for (const spans of unpackSlices(packed, SPAN_CODEC, size)) {
    yield { resources: packed.resources, scopes: packed.scopes, spans };
  }
}

/** The log records of a packed batch, rebuilt `size` at a time, in order (see unpackSpanSlices). */
export function* unpackLogSlices(packed: PackedLogBatch, size: number): Generator<LogBatch> {
  for (const logs of unpackSlices(packed, LOG_CODEC, size)) {
    yield { resources: packed.resources, scopes: packed.scopes, logs };
  }
}
