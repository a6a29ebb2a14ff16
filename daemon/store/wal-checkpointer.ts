import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import type { CheckpointReply, CheckpointRequest } from "./checkpoint-worker.js";
import { WalIndexReader } from "./wal-index.js";

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
 * copies. SQLite's automatic checkpoint stays on as a backstop at twice the frames (as long a
 * log as `journal_size_limit` allows for), for commits that do not call `afterCommit` and for a
 * header that cannot be read; while the thread copies, it cannot run (SQLite lets one
 * checkpoint run at a time, and a second returns at once). If the thread cannot start, fails
 * or exits, or the header cannot be opened, the automatic checkpoint goes back to what it was.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private readonly thresholdFrames: number;
  private readonly index: WalIndexReader;
  private asked = false;
  /** The thread has copied: the writer copies what came in meanwhile at its next commit. */
  private copyRemainder = false;
  /** Checkpoints the thread has run. */
  threadCheckpoints = 0;

  /** `report` hears, once, why checkpoints went back to the writer. */
  constructor(
    private readonly db: Database.Database,
    dbPath: string,
    private readonly report: (line: string) => void,
  ) {
    this.index = new WalIndexReader(dbPath);
    this.thresholdFrames = Number(db.pragma("wal_autocheckpoint", { simple: true }));
    if (this.thresholdFrames <= 0) return;
    let worker: Worker;
    try {
      worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), { workerData: { dbPath } });
    } catch (error) {
      report(`the checkpoint thread did not start (${(error as Error).message}); the writer checkpoints itself`);
      return;
    }
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

  /** Whether the thread is copying the log now: no other checkpoint can run meanwhile. */
  get copying(): boolean {
    return this.worker !== null && this.asked;
  }

  /** Call after a commit, outside any transaction. Never throws. */
  afterCommit(): void {
    if (this.worker === null) return;
    if (this.copyRemainder) {
      this.copyRemainder = false;
      try {
        this.db.pragma("wal_checkpoint(PASSIVE)");
      } catch {
        // A failed checkpoint loses nothing: the frames stay in the log for the next one.
      }
      return;
    }
    if (this.asked) return;
    let counts: ReturnType<WalIndexReader["counts"]>;
    try {
      counts = this.index.counts();
    } catch (error) {
      this.fallBack(`the write-ahead log's index could not be read (${(error as Error).message})`);
      return;
    }
    if (counts !== null && counts.frames - counts.backfilled >= this.thresholdFrames) {
      this.asked = true;
      this.worker.postMessage("checkpoint" satisfies CheckpointRequest);
    }
  }

  /**
   * Stops the thread; resolves once it has ended, so that a checkpoint it was running is done
   * and the writer's own (a truncating one at close) is not refused. The writer checkpoints
   * as before meanwhile and after.
   */
  stop(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return Promise.resolve();
    this.worker = null;
    this.restore();
    const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("stop" satisfies CheckpointRequest);
    return ended;
  }

  private onReply(reply: CheckpointReply): void {
    if (this.worker === null) return;
    if (!reply.ok) {
      this.fallBack(`a checkpoint on its thread failed: ${reply.message}`);
      return;
    }
    this.threadCheckpoints++;
    this.asked = false;
    this.copyRemainder = true;
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
  }
}
