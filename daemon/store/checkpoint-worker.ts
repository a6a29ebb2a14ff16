/**
 * The checkpoint thread: copies the write-ahead log into the database file when the writer asks
 * (wal-checkpointer.ts), on a connection of its own, so that the writer thread goes on
 * committing while the disk takes the copy and its syncs.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openReadConnection } from "./connection.js";

/** Writer to this thread. */
export type CheckpointRequest = "checkpoint" | "stop";

/** This thread to the writer, after each checkpoint: done, or why not. */
export type CheckpointReply = { ok: true } | { ok: false; message: string };

if (!parentPort) throw new Error("checkpoint-worker must run as a worker thread");
const port = parentPort;
// A checkpoint reads log frames and writes database pages without the page cache.
const db = openReadConnection((workerData as { dbPath: string }).dbPath);
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
