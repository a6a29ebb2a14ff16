/**
 * The checkpoint thread: copies the write-ahead log into the database file when the writer asks
 * (wal-checkpointer.ts), on a connection of its own, so that the writer thread goes on
 * committing while the disk takes the copy and its syncs.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

/** Writer to this thread. */
export type CheckpointRequest = "checkpoint" | "stop";

/** This thread to the writer, after each checkpoint: done, or why not. */
export type CheckpointReply = { ok: true } | { ok: false; message: string };

if (!parentPort) throw new Error("checkpoint-worker must run as a worker thread");
const port = parentPort;
// Opened here rather than by connection.ts, whose imports (the schema and its migrations) would
// take a few megabytes of this thread's heap for nothing: it runs no statement but checkpoints.
const db = new Database((workerData as { dbPath: string }).dbPath, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma("query_only = ON");
// A checkpoint reads log frames and writes database pages without the page cache.
db.pragma("cache_size = -256");
// A checkpoint syncs the log, then the database file, as the writer's own did (connection.ts).
db.pragma("synchronous = NORMAL");

port.on("message", (request: CheckpointRequest) => {
  if (request === "stop") {
    db.close();
    port.close();
    return;
  }
  try {
    // PASSIVE: copies what no reader still needs, and never waits for the writer or readers.
    db.pragma("wal_checkpoint(PASSIVE)");
    port.postMessage({ ok: true } satisfies CheckpointReply);
  } catch (error) {
    port.postMessage({ ok: false, message: (error as Error).message } satisfies CheckpointReply);
  }
});
