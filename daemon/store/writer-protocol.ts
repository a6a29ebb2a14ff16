import type { MessagePort } from "node:worker_threads";
import type { RecordTally } from "./kept-records.js";
import type { PackedLogBatch, PackedSpanBatch } from "./packed-batch.js";
import type { RetentionPolicy } from "./retention.js";

/** Settings handed to the writer worker when it starts. */
export interface WriterOptions {
  dbPath: string;
  retention: RetentionPolicy;
  /** How often age-based retention runs. */
  retentionIntervalMs: number;
}

/**
 * A decoded batch to commit, packed for the crossing (packed-batch.ts). `id` is the main
 * thread's, so the writer can answer it directly.
 */
export type WriteRequest =
  | { type: "spans"; id: number; batch: PackedSpanBatch; receivedNs: bigint }
  | { type: "logs"; id: number; batch: PackedLogBatch; receivedNs: bigint };

/**
 * From the main thread. Write requests arrive from the decoder worker over its own port; a
 * replacement decoder's port comes as `decoder`.
 */
export type WriterRequest = WriteRequest | { type: "close" } | { type: "decoder"; requests: MessagePort };

export type WriterReply =
  | { type: "ready"; schemaVersion: number; migrated: number[]; sqliteVersion: string }
  | { type: "fatal"; kind: "version" | "open"; message: string }
  /** `cutoffNs`: records timed before it were rejected as older than retention (kept-records.ts). */
  | ({ type: "written"; id: number; cutoffNs: bigint } & RecordTally)
  | { type: "failed"; id: number; message: string }
  /** The database file was deleted or replaced: no write is acknowledged from now on. */
  | { type: "lost"; message: string }
  | { type: "trimmed"; spans: number; logs: number }
  | { type: "closed" };
