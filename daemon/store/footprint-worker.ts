/**
 * The footprint thread: measures the store's bytes per signal on its own read connection when
 * asked (store-footprint.ts), so the page walk, about a second for a gigabyte, holds up neither
 * health checks nor queries.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openReadConnection } from "./connection.js";
import { measureFootprint, type StoreFootprint } from "./store-footprint.js";

export type FootprintReply = { ok: true; footprint: StoreFootprint } | { ok: false; message: string };

if (!parentPort) throw new Error("footprint-worker must run as a worker thread");
const port = parentPort;
const db = openReadConnection((workerData as { dbPath: string }).dbPath);
// The walk visits every page once: a small cache, so they do not stay in this process's memory.
db.pragma("cache_size = -2048");

port.on("message", (_message: "measure") => {
  try {
    port.postMessage({ ok: true, footprint: measureFootprint(db) } satisfies FootprintReply);
  } catch (error) {
    port.postMessage({ ok: false, message: (error as Error).message } satisfies FootprintReply);
  }
});
