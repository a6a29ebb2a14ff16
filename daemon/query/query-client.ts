import { Worker } from "node:worker_threads";
import type { QueryCall, QueryReply } from "./query-worker.js";
import type { TelemetryReader } from "./telemetry-reader.js";

/** A query the store could not answer; the HTTP layer answers 500. */
export class QueryFailure extends Error {
  override name = "QueryFailure";
}

/** Every reader method, answered asynchronously by the query thread. */
export type AsyncReader = {
  [M in keyof TelemetryReader]: (...args: Parameters<TelemetryReader[M]>) => Promise<ReturnType<TelemetryReader[M]>>;
};

/** Main-thread side of the query worker. */
export class QueryClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  readonly reader: AsyncReader;

  constructor(dbPath: string) {
    this.worker = new Worker(new URL("./query-worker.js", import.meta.url), { workerData: { dbPath } });
    this.worker.on("message", (reply: QueryReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new QueryFailure(reply.message));
    });
    const failAll = (error: Error) => {
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", (error) => failAll(new QueryFailure(`the query thread stopped: ${error.message}`)));
    this.worker.on("exit", () => failAll(new QueryFailure("the query thread exited")));
    const call =
      (method: keyof TelemetryReader) =>
      (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          const id = this.nextId++;
          this.pending.set(id, { resolve, reject });
          this.worker.postMessage({ id, method, args } satisfies QueryCall);
        });
    this.reader = {
      services: call("services"),
      traces: call("traces"),
      trace: call("trace"),
      spans: call("spans"),
      span: call("span"),
      logs: call("logs"),
      traceStats: call("traceStats"),
      logStats: call("logStats"),
      facets: call("facets"),
    } as AsyncReader;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ type: "close" });
    });
  }
}
