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

/**
 * The main thread's handle on the forwarder thread (forward-worker.ts): starts it, passes its
 * progress on to be stored, keeps its latest status for health, and stops it. Nothing is lost
 * by stopping at any point: what was not reported delivered is sent again on the next start.
 */
export class Forwarding {
  private readonly worker: Worker;
  private latest: DestinationStatus[];
  private stopped: Promise<void> | null = null;
  private exited = false;

  constructor(options: ForwardingOptions) {
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
    const data: ForwardWorkerData = {
      dbPath: options.dbPath,
      destinations: options.destinations,
      pollMs: options.pollMs ?? 100,
    };
    this.worker = new Worker(new URL("./forward-worker.js", import.meta.url), { workerData: data });
    this.worker.on("message", (message: ForwardMessage) => {
      if (message.type === "progress") options.onProgress([message.progress]);
      else if (message.type === "status") this.latest = message.destinations;
      else options.onNotice(message.line);
    });
    this.worker.on("error", (error) => options.onNotice(`obsd: forwarding stopped: ${error.message}`));
    this.worker.on("exit", () => {
      this.exited = true;
    });
  }

  /** Each destination's state, lag and counters, as of the last half second. */
  status(): DestinationStatus[] {
    return this.latest;
  }

  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (this.exited) return resolve();
      const timer = setTimeout(() => void this.worker.terminate().then(() => resolve()), STOP_GRACE_MS);
      this.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ type: "stop" } satisfies ForwardCommand);
    });
    return this.stopped;
  }
}
