/**
 * The query thread: runs whole queries (run, shape, serialize) on its own read connection.
 * The HTTP thread parses the request into `{method, args}` and sends back the finished JSON
 * text, so neither a slow aggregate nor a large answer delays health checks or exports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { QueryError, type QueryErrorCode } from "../../shared/query-error.js";
import type { QueryMethod, QueryRequestOf } from "../../shared/query-types.js";
import { openReadConnection } from "../store/connection.js";
import { readCursorKey } from "../store/cursor-key.js";
import { QueryService } from "./query-service.js";
import { SqliteReader } from "./sqlite-reader.js";

export interface QueryCall {
  id: number;
  method: QueryMethod;
  /** The method's typed request (structured clone keeps its bigints). */
  args: QueryRequestOf<QueryMethod>;
  /** When the request arrived: the end of windows without a cursor. */
  nowNs: bigint;
}

/** `body` is the answer as JSON text; `code` is set when the query refused (QueryError). */
export type QueryReply =
  | { id: number; ok: true; body: string }
  | { id: number; ok: false; code: QueryErrorCode | null; message: string };

if (!parentPort) throw new Error("query-worker must run as a worker thread");
const port = parentPort;
const db = openReadConnection((workerData as { dbPath: string }).dbPath);
// Windows end when the request arrived on the HTTP thread, not when this thread gets to it.
let callNowNs = 0n;
const service = new QueryService({ reader: new SqliteReader(db), now: () => callNowNs, cursorKey: readCursorKey(db) });

port.on("message", (call: QueryCall | { type: "close" }) => {
  if ("type" in call) {
    db.close();
    port.close();
    return;
  }
  try {
    callNowNs = call.nowNs;
    const answer = service.call(call.method, call.args);
    port.postMessage({ id: call.id, ok: true, body: JSON.stringify(answer) } satisfies QueryReply);
  } catch (error) {
    const code = error instanceof QueryError ? error.code : null;
    port.postMessage({ id: call.id, ok: false, code, message: (error as Error).message } satisfies QueryReply);
  }
});
