import type { ResourceRecord, ScopeRecord } from "../otlp/records.js";
import type { Dictionaries, ResolvedResource } from "./dictionaries.js";
import type { HashedKeys } from "./hashed-postings.js";
import type { PostingsBuffer } from "./postings.js";
import type { RollupBuffer } from "./rollup-buffer.js";

/**
 * What the writer of one kind of record (spans, log records) shares with the others inside a
 * transaction: the dictionaries, the rollups, the services' last-seen times and the counters,
 * all written once at commit by TelemetryWriter.
 */
export interface SharedWriteState {
  /** When the collector storing these records started (ns): a new series' first point counts whole only after it. */
  readonly collectorStartNs: bigint;
  readonly dictionaries: Dictionaries;
  readonly rollups: RollupBuffer;
  /** The keys whose postings are written hashed, per postings table (hashed-postings.ts). */
  readonly hashedKeys: HashedKeys;
  /** A batch's resources and scopes as stored rows (ids), in batch order. */
  resolveScopes(
    batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
    receivedNs: bigint,
  ): { resources: ResolvedResource[]; scopes: number[] };
  /** Adds one record's index entries (`[key, value, ...]`) to `buffer`, for its row. */
  post(buffer: PostingsBuffer, indexed: string[], rowId: number): void;
  /**
   * A service sent a record timed `ns` (a span's start, a log record's or a point's time) that
   * arrived at `receivedNs` (0: unknown).
   */
  noteSeen(serviceId: number, ns: bigint, receivedNs: bigint): void;
  /** Adds `n` to the `counters` row `name` at commit. */
  count(name: string, n: number): void;
}

/** The writer of one kind of record: what it gathers during a transaction, written or forgotten at its end. */
export interface RecordWriter {
  /** Writes what it gathered (index entries) before commit. */
  flush(): void;
  /** Forgets what it gathered, after a rollback. */
  clear(): void;
  /** Whether it holds rows across transactions that readers would miss (metric-writer.ts). */
  holds?(): boolean;
  /** Makes this transaction's flush write what it holds. */
  releaseHeld?(): void;
  /** Whether it holds records the last retention pass could not see that are past its cutoff. */
  retentionDue?(): boolean;
  /** Makes this transaction's flush write those records, for the next pass. */
  releaseForRetention?(): void;
  /** The transaction it last flushed committed (after COMMIT; `clear` is called instead when it did not). */
  committed?(): void;
}
