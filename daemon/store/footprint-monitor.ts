import { Worker } from "node:worker_threads";
import type { FootprintReply } from "./footprint-worker.js";
import type { FootprintSignal, StoreFootprint } from "./store-footprint.js";

/** A measurement older than this is taken again when next asked for. */
const STALE_MS = 10 * 60_000;
/** Sooner when the records counted changed by this share (a new store fills fast)... */
const CHANGED_SHARE = 0.1;
/** ...but not more often than this. */
const SOONEST_MS = 15_000;

export interface MeasuredFootprint extends StoreFootprint {
  /** When it was measured, ms since the epoch. */
  atMs: number;
}

/**
 * The store's bytes per signal, measured in a thread of its own (footprint-worker.ts) when
 * health asks and the last measurement is due again: ten minutes old, or the record counts
 * moved a tenth since (at most every 15 s; at once for an empty store's first records). `latest` never waits: it answers with the last
 * measurement (null before the first) and starts the next one when it is due. The thread
 * starts on the first ask, so a collector nobody asks never pays for it.
 */
export class FootprintMonitor {
  private worker: Worker | null = null;
  private measured: MeasuredFootprint | null = null;
  private pendingSinceMs: number | null = null;
  private failedMs = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly dbPath: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The last measurement; `records` are the counts now, to judge whether it is due again. */
  latest(records: Record<FootprintSignal, number>): MeasuredFootprint | null {
    if (this.due(records)) this.measure();
    return this.measured;
  }

  private due(records: Record<FootprintSignal, number>): boolean {
    if (this.closed || this.pendingSinceMs !== null) return false;
    const now = this.now();
    // A measurement that failed is not tried again at once.
    if (now - this.failedMs < SOONEST_MS) return false;
    const last = this.measured;
    if (last === null) return true;
    const age = now - last.atMs;
    if (age >= STALE_MS) return true;
    const then = last.records.spans + last.records.logs + last.records.points;
    const total = records.spans + records.logs + records.points;
    if (total === then) return false;
    // The first records of an empty store are measured at once.
    if (then === 0) return true;
    return age >= SOONEST_MS && Math.abs(total - then) > then * CHANGED_SHARE;
  }

  private measure(): void {
    this.pendingSinceMs = this.now();
    if (this.worker === null) this.worker = this.start();
    this.worker.postMessage("measure");
  }

  private start(): Worker {
    const worker = new Worker(new URL("./footprint-worker.js", import.meta.url), {
      workerData: { dbPath: this.dbPath },
    });
    worker.on("message", (reply: FootprintReply) => {
      this.pendingSinceMs = null;
      // A failed measurement keeps the last good one.
      if (reply.ok) this.measured = { ...reply.footprint, atMs: this.now() };
      else this.failedMs = this.now();
    });
    worker.on("error", () => {});
    worker.on("exit", () => {
      this.worker = null;
      this.pendingSinceMs = null;
    });
    worker.unref();
    return worker;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    await exited;
  }
}
