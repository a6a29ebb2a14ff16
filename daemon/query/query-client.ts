import { Worker } from "node:worker_threads";
import type { QueryCall, QueryReply } from "./query-worker.js";

/** A query the store could not answer; the HTTP layer answers 500. */
export class QueryFailure extends Error {
  override name = "QueryFailure";
}

export interface QueryResponse {
  status: number;
  /** The answer, already serialized as JSON. */
  body: string;
}

/** Main-thread side of the query worker. */
export class QueryClient {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve(value: QueryResponse | null): void; reject(error: Error): void }
  >();
  private nextId = 1;

  constructor(dbPath: string) {
    this.worker = new Worker(new URL("./query-worker.js", import.meta.url), { workerData: { dbPath } });
    this.worker.on("message", (reply: QueryReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if (!reply.ok) pending.reject(new QueryFailure(reply.message));
      else pending.resolve(reply.status === null ? null : { status: reply.status, body: reply.body });
    });
    const failAll = (error: Error) => {
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", (error) => failAll(new QueryFailure(`the query thread stopped: ${error.message}`)));
    this.worker.on("exit", () => failAll(new QueryFailure("the query thread exited")));
  }

  /** Answers a GET on `path`; null when no query route has that path. */
  answer(path: string, query: Record<string, unknown>, nowNs: bigint): Promise<QueryResponse | null> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, path, query, nowNs } satisfies QueryCall);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ type: "close" });
    });
  }
}
