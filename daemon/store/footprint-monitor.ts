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
  /** A measurement was asked for and has not answered yet. */
  private pending = false;
  private failedMs = Number.NEGATIVE_INFINITY;
  /** The last failure told, so a failure that repeats is logged once. */
  private lastFailure: string | null = null;
  private closed = false;

  /**
   * `onNotice` hears why a measurement failed (once, until one succeeds again); health then
   * keeps the last good measurement, and the next is tried 15 s later at the soonest.
   */
  constructor(
    private readonly dbPath: string,
    private readonly onNotice: (line: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The last measurement; `records` are the counts now, to judge whether it is due again. A
   * measurement under way is waited for however long it takes (one SQLite call walks the
   * pages, which nothing can cut short); until it answers, the last one stands.
   */
  latest(records: Record<FootprintSignal, number>): MeasuredFootprint | null {
    if (this.due(records)) this.measure();
    return this.measured;
  }

  private due(records: Record<FootprintSignal, number>): boolean {
    if (this.closed || this.pending) return false;
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

  private failed(reason: string): void {
    this.pending = false;
    this.failedMs = this.now();
    if (reason !== this.lastFailure) this.onNotice(`obsd: measuring the store's size per signal failed: ${reason}`);
    this.lastFailure = reason;
  }

  private measure(): void {
    this.pending = true;
    try {
      if (this.worker === null) this.worker = this.start();
      this.worker.postMessage("measure");
    } catch (error) {
      // A thread that cannot be made fails this measurement, never the health request.
      this.failed((error as Error).message);
    }
  }

  private start(): Worker {
    const worker = new Worker(new URL("./footprint-worker.js", import.meta.url), {
      workerData: { dbPath: this.dbPath },
    });
    let error: string | null = null;
    worker.on("message", (reply: FootprintReply) => {
      if (reply.ok) {
        this.pending = false;
        this.lastFailure = null;
        this.measured = { ...reply.footprint, atMs: this.now() };
      } else this.failed(reply.message);
    });
    worker.on("error", (failure) => {
      error = failure.message;
    });
    worker.on("exit", () => {
      if (this.worker === worker) this.worker = null;
      // An exit nobody asked for (the store could not be opened, the thread crashed) is a failure.
      if (!this.closed && this.pending) this.failed(error ?? "the thread stopped");
    });
    worker.unref();
    return worker;
  }

  /**
   * Stops the thread. One in the middle of a measurement stops when its SQLite call returns
   * (about a second a gigabyte): the collector closes this last, after the writer.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.pending = false;
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    await worker.terminate();
  }
}
