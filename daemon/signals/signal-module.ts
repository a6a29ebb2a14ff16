/**
 * What the ingest side knows about one OTLP signal, gathered in one module per signal
 * (traces.ts, logs.ts) and registered once (registry.ts). The HTTP route, the decoder thread,
 * the writer thread and retention look a signal up by name or loop over the registry; none of
 * them names a signal. A new signal is its module (its decoders, packed layout, writer step and
 * retention table) and one line in the registry.
 *
 * A module is loaded on every thread, so it holds data and functions only: each thread calls
 * the part that is its own (`decode` on the decoder thread, `store` on the writer thread).
 */
import type Database from "better-sqlite3";
import type { WireFormat } from "../otlp/decode-request.js";
import type { RecordTally } from "../store/kept-records.js";
import type { PackedBatchOf } from "../store/packed-batch.js";
import type { RecordWriter, SharedWriteState } from "../store/record-writer.js";

/** What a write is stored against: the retention cutoff and the request's arrival. */
export interface StoreContext {
  /** Records timed before it are rejected as older than retention (kept-records.ts). */
  cutoffNs: bigint;
  receivedNs: bigint;
  /** Records unpacked and written at a time (writer-worker.ts, SLICE_RECORDS). */
  sliceRecords: number;
}

/** A retention pass's deleted rows beyond the signal's own (traces: orphan entries and trace summaries). */
export interface RetentionCompanion {
  /** Columns the pass selects beside `id` and the time, for `deleted`. */
  readonly columns: readonly string[];
  /** Called in the deleting transaction, after the rows are gone. */
  deleted(rows: readonly Record<string, unknown>[]): void;
}

/**
 * Where a signal's records live, for retention (daemon/store/retention.ts): a table of
 * records with an INTEGER id, which retention trims itself, or a signal's own trimmer.
 */
export type SignalRetention = RowTableRetention | OwnRetention;

/** A signal whose records are not one table with an INTEGER id trims them itself (metrics). */
export interface OwnRetention {
  /** The counter holding the latest time retention has deleted. */
  readonly trimmedThrough: string;
  /** Made once with the writer connection, as retention starts. */
  readonly trimmer: (db: Database.Database, trimmedThrough: string) => RetentionTrimmer;
}

/** A signal's own trimming, each call inside retention's transaction, keeping its counters true. */
export interface RetentionTrimmer {
  /** Deletes up to `limit` records timed before `cutoffNs`; returns how many. */
  trimOlder(cutoffNs: bigint, limit: number): number;
  /** Deletes up to `limit` of the oldest records (size retention); returns how many. */
  trimOldest(limit: number): number;
  /** The oldest record's time, or undefined when there is none. */
  oldest(): bigint | undefined;
  /**
   * The earliest time among the `limit` records `trimOldest(limit)` would delete, or undefined
   * when there is none: size retention trims the table whose next records are oldest.
   */
  nextOldest(limit: number): bigint | undefined;
}

/** A signal whose records are one table with an INTEGER id (traces, logs). */
export interface RowTableRetention {
  /** The table of records, with an INTEGER `id` in storage order. */
  readonly table: string;
  /** The column retention judges a record's age by. */
  readonly timeColumn: string;
  readonly rollupTable: string;
  readonly postingsTable: string;
  /** Its postings of keys whose values do not repeat (store/hashed-postings.ts)... */
  readonly hashedPostingsTable: string;
  /** ...and those the writer wrote hashed since their bucket was last packed. */
  readonly pendingHashesTable: string;
  /** The counter holding the latest time retention has deleted (rollup readers trust slots after it). */
  readonly trimmedThrough: string;
  readonly companion?: (db: Database.Database) => RetentionCompanion;
}

/** The decoder thread's side of a signal's crossing memory (SignalModule.crossing). */
export interface CrossingSender<Batch> {
  /**
   * Takes out of `batch` what the writer already has from this thread; returns what to call
   * once the batch is posted (a post that threw leaves the memory as it was).
   */
  leave(batch: Batch): () => void;
}

/** The writer thread's side of a signal's crossing memory, one per decoder port. */
export interface CrossingReceiver<Batch> {
  /**
   * Puts back what `batch` left out, before anything else reads it. Throws when it cannot: the
   * crossing is broken, the batch is not stored, and the decoder is replaced (both sides then
   * start afresh).
   */
  arrive(batch: Batch): void;
}

export interface SignalModule<Name extends string, Records extends string, Writer extends RecordWriter = RecordWriter> {
  /** The OTLP signal, as in its path (`/v1/traces`) and in error messages. */
  readonly name: Name;
  readonly path: `/v1/${Name}`;
  /** What its records are counted as: their `counters` row, and the key of retention's counts. */
  readonly records: Records;
  /** A count of its records in words: "1 span", "3 spans". */
  countWords(count: number): string;
  /** The OTLP/JSON partial-success field that carries the rejected count (`rejectedSpans`). */
  readonly rejectedField: string;
  /** How the OpenAPI document names its export: the operation and the OTLP request message. */
  readonly openapi: { readonly operationId: string; readonly requestMessage: string };
  /**
   * Decoder thread: a request body's records, packed to cross to the writer. Throws
   * PayloadError for an invalid body and TooManyValuesError past its allowance; charges what
   * it decodes to the allowance (decode-allowance.ts).
   */
  decode(body: Buffer, format: WireFormat): PackedBatchOf<Records>;
  /** Records in a packed batch, repeats and all. */
  count(batch: PackedBatchOf<Records>): number;
  /**
   * Writer thread: the writer of its records, made once with the writer connection; it shares
   * the transaction's dictionaries, rollups and counters with the others (record-writer.ts).
   */
  createWriter(db: Database.Database, shared: SharedWriteState): Writer;
  /**
   * What a decoder thread and the writer remember across one decoder's batches, so that a batch
   * need not carry again what an earlier one did (metrics: attribute-text-crossing.ts).
   * `sender` is made once per decoder thread and given each batch as it is posted to the
   * writer; `receiver` once per decoder port on the writer thread, and given each batch taken
   * from that port, before anything else reads it.
   */
  readonly crossing?: {
    sender(): CrossingSender<PackedBatchOf<Records>>;
    receiver(): CrossingReceiver<PackedBatchOf<Records>>;
  };
  /** Writer thread: stores a batch with its writer, slice by slice, inside the open transaction. */
  store(writer: Writer, batch: PackedBatchOf<Records>, context: StoreContext): RecordTally;
  readonly retention: SignalRetention;
}
