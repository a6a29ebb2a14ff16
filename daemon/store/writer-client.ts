import { Worker } from "node:worker_threads";
import type { LogBatch, SpanBatch } from "../otlp/records.js";
import type { WriterOptions, WriterReply, WriterRequest } from "./writer-protocol.js";

/** The store refused or failed a write; the HTTP layer answers 500. */
export class StorageError extends Error {
  override name = "StorageError";
}

/** The database could not be opened; `kind: "version"` means it was written by a newer obs. */
export class StoreOpenError extends Error {
  override name = "StoreOpenError";
  constructor(
    message: string,
    readonly kind: "version" | "open",
  ) {
    super(message);
  }
}

interface Pending {
  resolve(inserted: number): void;
  reject(error: Error): void;
}

export interface WriterReady {
  schemaVersion: number;
  migrated: number[];
  sqliteVersion: string;
}

/**
 * The HTTP side of the writer worker: posts decoded batches and resolves each write once
 * its transaction has committed.
 */
export class WriterClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;
  private closed: Promise<void> | null = null;
  readonly ready: Promise<WriterReady>;
  onTrimmed: (spans: number, logs: number) => void = () => {};

  constructor(options: WriterOptions) {
    this.worker = new Worker(new URL("./writer-worker.js", import.meta.url), { workerData: options });
    this.ready = new Promise((resolve, reject) => {
      const onReply = (reply: WriterReply) => {
        if (reply.type === "ready") {
          resolve({ schemaVersion: reply.schemaVersion, migrated: reply.migrated, sqliteVersion: reply.sqliteVersion });
        } else if (reply.type === "fatal") {
          reject(new StoreOpenError(reply.message, reply.kind));
        } else {
          this.handle(reply);
        }
      };
      this.worker.on("message", onReply);
      this.worker.on("error", (error) => {
        this.fail(new StorageError(`the writer stopped: ${error.message}`));
        reject(error);
      });
      this.worker.on("exit", (code) => {
        const error = new StorageError(`the writer exited (code ${code})`);
        this.fail(error);
        reject(error);
      });
    });
  }

  private handle(reply: WriterReply): void {
    if (reply.type === "written" || reply.type === "failed") {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if (reply.type === "written") pending.resolve(reply.inserted);
      else pending.reject(new StorageError(reply.message));
    } else if (reply.type === "trimmed") {
      this.onTrimmed(reply.spans, reply.logs);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private post(request: Extract<WriterRequest, { type: "spans" | "logs" }>): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new StorageError("the store is closing"));
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }

  /** Resolves with the number of new spans once they are committed. */
  writeSpans(batch: SpanBatch, receivedNs: bigint): Promise<number> {
    return this.post({ type: "spans", id: this.nextId++, batch, receivedNs });
  }

  writeLogs(batch: LogBatch, receivedNs: bigint): Promise<number> {
    return this.post({ type: "logs", id: this.nextId++, batch, receivedNs });
  }

  /** Commits what is queued, closes the database and ends the worker. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      if (this.failure) {
        void this.worker.terminate().then(() => resolve());
        return;
      }
      this.worker.on("message", (reply: WriterReply) => {
        if (reply.type === "closed") resolve();
      });
      this.worker.on("exit", () => resolve());
      this.worker.postMessage({ type: "close" } satisfies WriterRequest);
    });
    return this.closed;
  }
}
