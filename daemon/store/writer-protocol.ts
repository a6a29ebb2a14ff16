import type { LogBatch, SpanBatch } from "../otlp/records.js";
import type { RetentionPolicy } from "./retention.js";

/** Settings handed to the writer worker when it starts. */
export interface WriterOptions {
  dbPath: string;
  retention: RetentionPolicy;
  /** How often age-based retention runs. */
  retentionIntervalMs: number;
}

export type WriterRequest =
  | { type: "spans"; id: number; batch: SpanBatch; receivedNs: bigint }
  | { type: "logs"; id: number; batch: LogBatch; receivedNs: bigint }
  | { type: "close" };

export type WriterReply =
  | { type: "ready"; schemaVersion: number; migrated: number[]; sqliteVersion: string }
  | { type: "fatal"; kind: "version" | "open"; message: string }
  | { type: "written"; id: number; inserted: number }
  | { type: "failed"; id: number; message: string }
  | { type: "trimmed"; spans: number; logs: number }
  | { type: "closed" };
