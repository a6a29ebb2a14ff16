import type Database from "better-sqlite3";
import { WalCheckpointer } from "../daemon/store/wal-checkpointer.js";

/**
 * Checkpoints for a raw ceiling's writer as obsd's writer thread has them (wal-checkpointer.ts):
 * copied on a thread of their own, asked after each commit, the thread's answer taken between
 * transactions as the writer thread's event loop takes it. Without this a raw ceiling would
 * wait for every checkpoint's copy and syncs where obsd does not, and its ratio to end to end
 * would flatter obsd.
 */
export function threadCheckpoints(
  db: Database.Database,
  path: string,
): {
  afterCommit(): Promise<void>;
  stop(): Promise<void>;
} {
  const checkpointer = new WalCheckpointer(db, path, (line) => {
    throw new Error(`bench: ${line}`);
  });
  return {
    async afterCommit() {
      checkpointer.afterCommit();
      await new Promise((resolve) => setImmediate(resolve));
    },
    /** Ends the thread once a copy under way is done, before the caller closes the database. */
    stop() {
      return checkpointer.stop();
    },
  };
}
