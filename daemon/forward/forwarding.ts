import { Worker } from "node:worker_threads";
import type { ForwardDestination } from "../../shared/forward-settings.js";
import type { ForwardProgress } from "../store/forward-outbox.js";
import type { DestinationStatus, ForwardCommand, ForwardMessage, ForwardWorkerData } from "./forward-protocol.js";

export type { DestinationStatus };

export interface ForwardingOptions {
  dbPath: string;
  destinations: ForwardDestination[];
  /** Where delivered positions go to be stored (the ingest pipeline's writer). */
  onProgress: (progress: ForwardProgress[]) => void;
  onNotice: (line: string) => void;
  pollMs?: number;
}

/** How long stopping waits for a send in flight before the thread is ended. */
const STOP_GRACE_MS = 2_000;

/** Waits before starting a forwarder thread again after it stopped unexpectedly: 1 s, doubling to 30 s. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MOST_MS = 30_000;

/**
 * The main thread's handle on the forwarder thread (forward-worker.ts): starts it, passes its
 * progress on to be stored, keeps its latest status for health, and stops it. Nothing is lost
 * by stopping at any point: what was not reported delivered is sent again on the next start.
 * A thread that stops on its own (a bug, memory) is started again, after a pause that grows
 * while it keeps stopping; meanwhile health shows every destination as retrying, with why.
 */
export class Forwarding {
  private worker: Worker;
  private latest: DestinationStatus[];
  private stopped: Promise<void> | null = null;
  private exited = false;
  private restartMs = RESTART_FIRST_MS;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ForwardingOptions) {
    this.latest = options.destinations.map((d) => ({
      url: d.url,
      protocol: d.protocol,
      state: "ok",
      retryingSince: null,
      lastError: null,
      lagRecords: 0,
      lagSeconds: 0,
      sent: 0,
      retried: 0,
      dropped: 0,
    }));
    this.worker = this.start();
  }

  private start(): Worker {
    const { options } = this;
    const data: ForwardWorkerData = {
      dbPath: options.dbPath,
      destinations: options.destinations,
      pollMs: options.pollMs ?? 100,
    };
    const worker = new Worker(new URL("./forward-worker.js", import.meta.url), { workerData: data });
    this.exited = false;
    let failure = "it exited";
    worker.on("message", (message: ForwardMessage) => {
      if (message.type === "progress") {
        options.onProgress([message.progress]);
        this.restartMs = RESTART_FIRST_MS;
      } else if (message.type === "status") this.latest = message.destinations;
      else options.onNotice(message.line);
    });
    worker.on("error", (error) => {
      failure = error.message;
    });
    worker.on("exit", () => {
      this.exited = true;
      if (this.stopped !== null) return;
      options.onNotice(`obsd: forwarding stopped (${failure}); starting it again in ${this.restartMs / 1000} s`);
      const since = new Date().toISOString();
      this.latest = this.latest.map((d) => ({
        ...d,
        state: "retrying",
        retryingSince: d.retryingSince ?? since,
        lastError: `the forwarder stopped: ${failure}`,
      }));
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (this.stopped === null) this.worker = this.start();
      }, this.restartMs);
      this.restartMs = Math.min(RESTART_MOST_MS, this.restartMs * 2);
    });
    return worker;
  }

  /** Each destination's state, lag and counters, as of the last half second. */
  status(): DestinationStatus[] {
    return this.latest;
  }

  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (this.restartTimer !== null) clearTimeout(this.restartTimer);
      if (this.exited) return resolve();
      const worker = this.worker;
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), STOP_GRACE_MS);
      worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: "stop" } satisfies ForwardCommand);
    });
    return this.stopped;
  }
}
