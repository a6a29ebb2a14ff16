import type { MessagePort } from "node:worker_threads";
import type { RecordCounts, SignalBatch } from "../signals/registry.js";
import type { ForwardProgress } from "./forward-outbox.js";
import type { RecordTally } from "./kept-records.js";
import type { RetentionPolicy } from "./retention.js";

/** Settings handed to the writer worker when it starts. */
export interface WriterOptions {
  dbPath: string;
  retention: RetentionPolicy;
  /** How often age-based retention runs. */
  retentionIntervalMs: number;
  /** The forwarding destinations' keys: with any, accepted requests are kept in the outbox. */
  forwardDestinations?: string[];
}

/**
 * A decoded batch to commit, packed for the crossing (packed-batch.ts), with the signal whose
 * module stores it. `id` is the main thread's, so the writer can answer it directly.
 */
export type WriteRequest = {
  type: "write";
  id: number;
  receivedNs: bigint;
  /** The request as received (inflated), for the forwarding outbox; only while forwarding. */
  forward?: { format: number; body: Uint8Array };
} & SignalBatch;

/**
 * From the main thread. Write requests arrive from the decoder worker over its own port; a
 * replacement decoder's port comes as `decoder`.
 */
export type WriterRequest =
  | WriteRequest
  | { type: "close" }
  /**
   * A reader is about to read metrics: write what the writer holds unwritten across
   * transactions (metric-writer.ts), then answer `heldWritten` with the same id.
   */
  | { type: "writeHeld"; id: number }
  | { type: "decoder"; requests: MessagePort }
  /**
   * The collector lost its store's lock: another collector may own the file now. Nothing more
   * is written, held rows and requests still queued included (those are answered as failed).
   */
  | { type: "lockLost"; reason: string }
  /** From the forwarder, through the main thread: how far destinations have delivered. */
  | { type: "forwarded"; progress: ForwardProgress[] };

/** `cutoffNs`: records timed before it were rejected as older than retention (kept-records.ts). */
export type WrittenRequest = { id: number; cutoffNs: bigint } & RecordTally;

export type WriterReply =
  | { type: "ready"; schemaVersion: number; migrated: number[]; sqliteVersion: string }
  | { type: "fatal"; kind: "version" | "open"; message: string }
  /**
   * The requests of one transaction, committed: one message for all of them, so a commit of
   * several requests wakes the main thread once.
   */
  | { type: "written"; writes: WrittenRequest[] }
  /**
   * `transient`: another connection held the file, or the decoder is to be replaced; the same
   * write may succeed later. `brokenCrossing`: the batch came from the decoder port of that
   * number (0 the first, then one more per `decoder` request) and what it left out could not
   * be put back (SignalModule.crossing): that decoder is to be replaced.
   */
  | { type: "failed"; id: number; message: string; transient?: boolean; brokenCrossing?: number }
  /** The database file was deleted or replaced: no write is acknowledged from now on. */
  | { type: "lost"; message: string }
  /** Rows retention deleted, per signal's records. */
  | { type: "trimmed"; counts: RecordCounts }
  /** `error`: why what was held could not be written (the reader reads what is stored). */
  | { type: "heldWritten"; id: number; error?: string }
  | { type: "closed" };
