/**
 * The query thread: answers whole query requests (validate, run, shape, serialize) on its own
 * read connection. The HTTP thread only forwards the request and sends back the finished JSON
 * text, so neither a slow aggregate nor a large answer delays health checks or exports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openReadConnection } from "../store/connection.js";
import { readCursorKey } from "../store/cursor-key.js";
import { answerQuery } from "./api-handlers.js";
import { SqliteReader } from "./sqlite-reader.js";

export interface QueryCall {
  id: number;
  path: string;
  query: Record<string, unknown>;
  nowNs: bigint;
}

/** `body` is JSON text; a null status means no query route has this path. */
export type QueryReply =
  | { id: number; ok: true; status: number | null; body: string }
  | { id: number; ok: false; message: string };

if (!parentPort) throw new Error("query-worker must run as a worker thread");
const port = parentPort;
const db = openReadConnection((workerData as { dbPath: string }).dbPath);
const reader = new SqliteReader(db);
const cursorKey = readCursorKey(db);

port.on("message", (call: QueryCall | { type: "close" }) => {
  if ("type" in call) {
    db.close();
    port.close();
    return;
  }
  try {
    const answer = answerQuery(call.path, { query: call.query, nowNs: call.nowNs, cursorKey }, reader);
    const reply: QueryReply = answer
      ? { id: call.id, ok: true, status: answer.status, body: JSON.stringify(answer.body) }
      : { id: call.id, ok: true, status: null, body: "" };
    port.postMessage(reply);
  } catch (error) {
    port.postMessage({ id: call.id, ok: false, message: (error as Error).message } satisfies QueryReply);
  }
});
