import { Worker } from "node:worker_threads";
import { QueryError } from "../../shared/query-error.js";
import type { QueryMethod, QueryRequestOf } from "../../shared/query-types.js";
import type { QueryCall, QueryReply } from "./query-worker.js";

/** A query the store could not answer; the HTTP layer answers 500. */
export class QueryFailure extends Error {
  override name = "QueryFailure";
}

/**
 * Runs a query method somewhere (the query thread, or a test's fake) and answers with the
 * finished JSON text; rejects with a QueryError or a QueryFailure.
 */
export interface QueryCaller {
  call<M extends QueryMethod>(method: M, args: QueryRequestOf<M>, nowNs: bigint): Promise<string>;
}

/** Main-thread side of the query worker: calls a QueryService method there. */
export class QueryClient implements QueryCaller {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(body: string): void; reject(error: Error): void }>();
  private nextId = 1;

  constructor(dbPath: string) {
    this.worker = new Worker(new URL("./query-worker.js", import.meta.url), { workerData: { dbPath } });
    this.worker.on("message", (reply: QueryReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.body);
      else if (reply.code !== null) pending.reject(new QueryError(reply.message, reply.code));
      else pending.reject(new QueryFailure(reply.message));
    });
    const failAll = (error: Error) => {
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", (error) => failAll(new QueryFailure(`the query thread stopped: ${error.message}`)));
    this.worker.on("exit", () => failAll(new QueryFailure("the query thread exited")));
  }

  /**
   * Runs `method` on the query thread; resolves with the answer as JSON text, rejects with a
   * QueryError (the query refused) or a QueryFailure (the store failed).
   */
  call<M extends QueryMethod>(method: M, args: QueryRequestOf<M>, nowNs: bigint): Promise<string> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args, nowNs } satisfies QueryCall);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ type: "close" });
    });
  }
}
