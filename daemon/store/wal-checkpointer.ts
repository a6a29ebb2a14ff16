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
 * copies (and, when no thread runs, during the start of one: tens of milliseconds). The thread
 * starts when a checkpoint is first due and ends once none has been due for IDLE_MS, so a
 * collector that receives little keeps no thread for it. SQLite's automatic checkpoint stays on
 * as a backstop at twice the frames (as long a log as `journal_size_limit` allows for), for
 * commits that do not call `afterCommit` and for a header that cannot be read; while the thread
 * copies, it cannot run (SQLite lets one checkpoint run at a time, and a second returns at
 * once). If the thread cannot start, fails or exits unasked, or the header cannot be opened,
 * the automatic checkpoint goes back to what it was.
 */
/**
 * How long the thread stays with no checkpoint due before it ends. Starting one costs tens of
 * milliseconds on a thread of its own; keeping one costs its heap and stack, about 10 MiB of
 * resident memory (about 3 MiB of it stays with the allocator once the thread has ended). Under
 * load checkpoints are due every second or so and the thread stays.
 */
export const IDLE_MS = 60_000;

export class WalCheckpointer {
  /** Whether checkpoints go to a thread: false once stopped, or after a failure. */
  private threadMode: boolean;
  /** The thread, while one runs (started when a checkpoint is first due). */
  private worker: Worker | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Settles once a thread told to stop has ended (null when none is ending). */
  private ending: Promise<void> | null = null;
  private readonly thresholdFrames: number;
  private readonly index: WalIndexReader;
  private asked = false;
  /** The thread has copied: the writer copies what came in meanwhile at its next commit. */
  private copyRemainder = false;
  /** Checkpoints the thread has run. */
  threadCheckpoints = 0;
  /** Threads started, the first included. */
  threadsStarted = 0;

  /** `report` hears, once, why checkpoints went back to the writer. */
  constructor(
    private readonly db: Database.Database,
    private readonly dbPath: string,
    private readonly report: (line: string) => void,
    private readonly idleMs = IDLE_MS,
  ) {
    this.index = new WalIndexReader(dbPath);
    this.thresholdFrames = Number(db.pragma("wal_autocheckpoint", { simple: true }));
    this.threadMode = this.thresholdFrames > 0;
    if (this.threadMode) db.pragma(`wal_autocheckpoint = ${2 * this.thresholdFrames}`);
  }

  /** Whether checkpoints go to a thread (not stopped, not failed), whether or not one runs now. */
  get threaded(): boolean {
    return this.threadMode;
  }

  /** Whether a checkpoint thread runs now. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Whether the thread is copying the log now: no other checkpoint can run meanwhile. */
  get copying(): boolean {
    return this.threadMode && this.asked;
  }

  /** Call after a commit, outside any transaction. Never throws. */
  afterCommit(): void {
    if (!this.threadMode) return;
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
    if (counts === null || counts.frames - counts.backfilled < this.thresholdFrames) return;
    const worker = this.worker ?? this.start();
    if (worker === null) return;
    this.clearIdleTimer();
    this.asked = true;
    worker.postMessage("checkpoint" satisfies CheckpointRequest);
  }

  /**
   * Stops checkpointing on a thread; resolves once the thread has ended, so that a checkpoint
   * it was running is done and the writer's own (a truncating one at close) is not refused. The
   * writer checkpoints as before meanwhile and after.
   */
  stop(): Promise<void> {
    // A second stop (the store lost, then the writer closing) waits for the same thread.
    if (!this.threadMode) return this.ending ?? Promise.resolve();
    this.threadMode = false;
    this.restore();
    return this.end();
  }

  /** A new thread, or null (and checkpoints back to the writer) when none can start. */
  private start(): Worker | null {
    let worker: Worker;
    try {
      worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), { workerData: { dbPath: this.dbPath } });
    } catch (error) {
      this.fallBack(`the checkpoint thread did not start (${(error as Error).message})`);
      return null;
    }
    // Events of a thread ended on purpose (idle, or stopped) are not failures.
    worker.on("message", (reply: CheckpointReply) => {
      if (worker === this.worker) this.onReply(reply);
    });
    worker.on("error", (error) => {
      if (worker === this.worker) this.fallBack(`the checkpoint thread failed: ${error.message}`);
    });
    worker.on("exit", (code) => {
      if (worker === this.worker) this.fallBack(`the checkpoint thread exited (code ${code})`);
    });
    // The writer thread ends when its work does, whatever this thread is doing.
    worker.unref();
    this.worker = worker;
    this.threadsStarted++;
    return worker;
  }

  /** Ends the thread, if one runs, once any copy under way is done. */
  private end(): Promise<void> {
    this.clearIdleTimer();
    const worker = this.worker;
    if (worker === null) return this.ending ?? Promise.resolve();
    this.worker = null;
    this.asked = false;
    const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    // Kept alive until it has ended: a caller awaiting this with nothing else to do would
    // otherwise see its event loop end first.
    worker.ref();
    worker.postMessage("stop" satisfies CheckpointRequest);
    const ending = ended.then(() => {
      if (this.ending === ending) this.ending = null;
    });
    this.ending = ending;
    return ending;
  }

  private onReply(reply: CheckpointReply): void {
    if (!reply.ok) {
      this.fallBack(`a checkpoint on its thread failed: ${reply.message}`);
      return;
    }
    this.threadCheckpoints++;
    this.asked = false;
    this.copyRemainder = true;
    this.idleTimer = setTimeout(() => void this.end(), this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private fallBack(reason: string): void {
    if (!this.threadMode) return;
    this.threadMode = false;
    this.report(`${reason}; the writer checkpoints the write-ahead log itself from now on`);
    this.clearIdleTimer();
    const worker = this.worker;
    this.worker = null;
    this.asked = false;
    // A copy it was making is cut short; a stop waits until it has.
    if (worker !== null) this.ending = worker.terminate().then(() => {});
    this.restore();
  }

  private restore(): void {
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${this.thresholdFrames}`);
  }
}
