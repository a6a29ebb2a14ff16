import type Database from "better-sqlite3";
import { fileSize } from "../../shared/file-size.js";

/** How long the guard's checkpoint waits for readers before giving up until next time. */
const READER_WAIT_MS = 200;
const MIN_INTERVAL_MS = 1_000;

/**
 * Keeps the write-ahead log near its limit while queries run during heavy ingestion.
 *
 * Automatic checkpoints are PASSIVE: they copy what they can, and the log starts over only
 * when no reader is using it. With a query loop and a steady stream of commits some reader
 * always is, so the log grows without bound (the soak found it: docs/RELIABILITY.md, "Soak").
 * Once the log passes its size limit, a RESTART checkpoint waits briefly for readers to move to
 * the newest snapshot, after which the next commit writes the log from the start and
 * `journal_size_limit` truncates it. A reader that holds an old snapshot longer (a long audit)
 * makes it give up after READER_WAIT_MS; it tries again at most once a second.
 */
export class WalGuard {
  private readonly walPath: string;
  private readonly limitBytes: number;
  private lastAttemptMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Database.Database,
    dbPath: string,
  ) {
    this.walPath = `${dbPath}-wal`;
    this.limitBytes = Number(db.pragma("journal_size_limit", { simple: true }));
  }

  /** Call after a commit. Returns true when it ran a checkpoint that let the log start over. */
  afterCommit(nowMs: number): boolean {
    if (this.limitBytes <= 0 || nowMs - this.lastAttemptMs < MIN_INTERVAL_MS) return false;
    if (fileSize(this.walPath) <= this.limitBytes) return false;
    this.lastAttemptMs = nowMs;
    const previous = Number(this.db.pragma("busy_timeout", { simple: true }));
    this.db.pragma(`busy_timeout = ${READER_WAIT_MS}`);
    try {
      const [result] = this.db.pragma("wal_checkpoint(RESTART)") as { busy: bigint | number }[];
      return Number(result?.busy ?? 1) === 0;
    } finally {
      this.db.pragma(`busy_timeout = ${previous}`);
    }
  }
}
