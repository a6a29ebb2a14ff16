import { closeSync, constants, openSync, readSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import type { CheckpointReply, CheckpointRequest } from "./checkpoint-worker.js";
import { WAL_INDEX_HEADER_BYTES, type WalIndexCounts, walIndexCounts } from "./wal-index.js";

/**
 * Checkpoints on a thread of their own (checkpoint-worker.ts). SQLite's automatic checkpoint
 * runs in the committing connection: the writer thread copied the whole log into the database
 * file and waited for both files' syncs, tens of milliseconds every few hundred under load,
 * taking no request meanwhile (docs/metrics-store.md, "Checkpoints off the writer thread").
 * So after each commit the writer calls `afterCommit`, which:
 *
 * - when the log holds as many frames not yet copied as the automatic checkpoint waited for
 *   (read from the WAL-index header, wal-index.ts), asks the checkpoint thread to copy them;
 * - once the thread has, runs a passive checkpoint itself, of the frames committed meanwhile
 *   (a few megabytes): a checkpoint on another connection never catches up with a writer that
 *   keeps committing, and the log starts over only at a transaction that begins with every
 *   frame copied.
 *
 * So the log holds at most the threshold and what is committed during one of the thread's
 * checkpoints. SQLite's automatic checkpoint stays on as a backstop at twice the frames (as long
 * a log as `journal_size_limit` allows for), for commits that do not call `afterCommit` and for
 * a header that cannot be read. If the thread fails or exits, the automatic checkpoint goes
 * back to what it was.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private readonly thresholdFrames: number;
  private readonly header = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  private shm = -1;
  private asked = false;
  private finishing = false;
  /** Checkpoints the thread has run. */
  threadCheckpoints = 0;

  /** `report` hears, once, why checkpoints went back to the writer. */
  constructor(
    private readonly db: Database.Database,
    private readonly dbPath: string,
    private readonly report: (line: string) => void,
  ) {
    this.thresholdFrames = Number(db.pragma("wal_autocheckpoint", { simple: true }));
    if (this.thresholdFrames <= 0) return;
    const worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), { workerData: { dbPath } });
    worker.on("message", (reply: CheckpointReply) => this.onReply(reply));
    worker.on("error", (error) => this.fallBack(`the checkpoint thread failed: ${error.message}`));
    worker.on("exit", (code) => this.fallBack(`the checkpoint thread exited (code ${code})`));
    // The writer thread ends when its work does, whatever this thread is doing.
    worker.unref();
    this.worker = worker;
    db.pragma(`wal_autocheckpoint = ${2 * this.thresholdFrames}`);
  }

  /** Whether the checkpoint thread is in use (not stopped, not failed). */
  get threaded(): boolean {
    return this.worker !== null;
  }

  /** Whether the thread is copying the log now. */
  get copying(): boolean {
    return this.worker !== null && this.asked;
  }

  /** Call after a commit, outside any transaction. Never throws. */
  afterCommit(): void {
    if (this.worker === null) return;
    if (this.finishing) {
      this.finishing = false;
      try {
        this.db.pragma("wal_checkpoint(PASSIVE)");
      } catch {
        // A failed checkpoint loses nothing: the frames stay in the log for the next one.
      }
      return;
    }
    if (this.asked) return;
    const counts = this.counts();
    if (counts !== null && counts.frames - counts.backfilled >= this.thresholdFrames) {
      this.asked = true;
      this.worker.postMessage("checkpoint" satisfies CheckpointRequest);
    }
  }

  /** Stops the thread (a checkpoint under way finishes first); the writer checkpoints as before. */
  stop(): void {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    worker.postMessage("stop" satisfies CheckpointRequest);
    this.restore();
  }

  private onReply(reply: CheckpointReply): void {
    if (this.worker === null) return;
    if (!reply.ok) {
      this.fallBack(`a checkpoint on its thread failed: ${reply.message}`);
      return;
    }
    this.threadCheckpoints++;
    this.asked = false;
    this.finishing = true;
  }

  private fallBack(reason: string): void {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    this.report(`${reason}; the writer checkpoints the write-ahead log itself from now on`);
    void worker.terminate();
    this.restore();
  }

  private restore(): void {
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${this.thresholdFrames}`);
    if (this.shm >= 0) closeSync(this.shm);
    this.shm = -1;
  }

  /** The log's counts now, or null when they cannot be read (the backstop checkpoints then). */
  private counts(): WalIndexCounts | null {
    try {
      if (this.shm < 0) this.shm = openSync(`${this.dbPath}-shm`, constants.O_RDONLY | constants.O_NOFOLLOW);
      readSync(this.shm, this.header, 0, WAL_INDEX_HEADER_BYTES, 0);
      return walIndexCounts(this.header);
    } catch {
      return null;
    }
  }
}
