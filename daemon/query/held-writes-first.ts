import type { QueryMethod, QueryRequestOf } from "../../shared/query-types.js";
import type { QueryCaller } from "./query-client.js";

/**
 * Whether a query reads what the writer holds unwritten across transactions: metric rollup
 * rows and series' newest times (metric-writer.ts). The services list, the audit and metric
 * facets read the newest times, as the metric routes do.
 */
export function readsHeldWrites<M extends QueryMethod>(method: M, args: QueryRequestOf<M>): boolean {
  switch (method) {
    case "listMetrics":
    case "metricSeries":
    case "describeMetric":
    case "listServices":
    case "audit":
      return true;
    case "facets":
      return (args as QueryRequestOf<"facets">).type === "metrics";
    default:
      return false;
  }
}

/**
 * A query caller that has the writer write what it holds before a query that reads it, so an
 * answer holds every point acknowledged before the query arrived.
 */
export class HeldWritesFirst implements QueryCaller {
  constructor(
    private readonly queries: QueryCaller,
    private readonly writeHeld: () => Promise<void>,
  ) {}

  async call<M extends QueryMethod>(method: M, args: QueryRequestOf<M>, nowNs: bigint): Promise<string> {
    if (readsHeldWrites(method, args)) await this.writeHeld();
    return this.queries.call(method, args, nowNs);
  }
}
