import { type BigIntStats, statSync } from "node:fs";

/**
 * Whether the database path still names the file the writer opened. SQLite keeps writing to an
 * open file after it is deleted or renamed over, and every commit succeeds, but into a file no
 * one will open again: acknowledged data is lost at the next stop. Comparing the path's device
 * and inode with the open file's before a commit is acknowledged catches both deletion and
 * replacement (a restore, a `mv`, a second `--db` pointed at the folder) for one `stat`.
 */
export class StoreFileWatch {
  private readonly opened: BigIntStats;

  constructor(private readonly path: string) {
    this.opened = statSync(path, { bigint: true });
  }

  /** Null while the path names the opened file; otherwise what happened to it, for the log and the answer. */
  problem(): string | null {
    let now: BigIntStats;
    try {
      now = statSync(this.path, { bigint: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        return `the database file ${this.path} was deleted while obsd was running; ${CONSEQUENCE}`;
      }
      return `the database file ${this.path} can no longer be checked (${(error as Error).message}); ${CONSEQUENCE}`;
    }
    if (now.dev !== this.opened.dev || now.ino !== this.opened.ino) {
      return `the database file ${this.path} was replaced by another file while obsd was running; ${CONSEQUENCE}`;
    }
    return null;
  }
}

const CONSEQUENCE =
  "writes are refused, since anything stored now would be lost at the next stop; restart obsd to open the store again";
