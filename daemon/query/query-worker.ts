/**
 * The query thread: runs the SQLite reader on its own read connection, so a slow query (an
 * aggregate over 24 hours) never holds up health checks or ingestion on the HTTP thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openReadConnection } from "../store/connection.js";
import { SqliteReader } from "./sqlite-reader.js";
import type { TelemetryReader } from "./telemetry-reader.js";

export interface QueryCall {
  id: number;
  method: keyof TelemetryReader;
  args: unknown[];
}

export type QueryReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; message: string };

if (!parentPort) throw new Error("query-worker must run as a worker thread");
const port = parentPort;
const db = openReadConnection((workerData as { dbPath: string }).dbPath);
const reader = new SqliteReader(db);

port.on("message", (call: QueryCall | { type: "close" }) => {
  if ("type" in call) {
    db.close();
    port.close();
    return;
  }
  try {
    const method = reader[call.method] as (...args: unknown[]) => unknown;
    port.postMessage({ id: call.id, ok: true, result: method.apply(reader, call.args) } satisfies QueryReply);
  } catch (error) {
    port.postMessage({ id: call.id, ok: false, message: (error as Error).message } satisfies QueryReply);
  }
});
