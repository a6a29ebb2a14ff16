import { expect } from "chai";
import { HeldWritesFirst } from "../../../daemon/query/held-writes-first.js";
import type { QueryCaller } from "../../../daemon/query/query-client.js";
import type { QueryMethod, QueryRequestOf } from "../../../shared/query-types.js";

describe("queries after what the writer holds", () => {
  const events: string[] = [];
  const inner: QueryCaller = {
    call: async (method) => {
      events.push(`query ${method}`);
      return "{}";
    },
  };
  const caller = new HeldWritesFirst(inner, async () => {
    // The query must wait for this: it resolves a turn later.
    await new Promise((resolve) => setImmediate(resolve));
    events.push("held written");
  });
  const call = <M extends QueryMethod>(method: M, args: object) =>
    caller.call(method, args as QueryRequestOf<M>, 0n).then(() => events.splice(0));

  it("has the writer write what it holds before every query that reads metric rows or newest times", async () => {
    for (const method of ["listMetrics", "metricSeries", "describeMetric", "listServices", "audit"] as const) {
      expect(await call(method, {})).to.deep.equal(["held written", `query ${method}`]);
    }
    expect(await call("facets", { type: "metrics", field: "name" })).to.deep.equal(["held written", "query facets"]);
  });

  it("asks nothing of the writer before queries of spans and logs", async () => {
    for (const method of ["listTraces", "getTrace", "searchSpans", "searchLogs", "logStats", "traceStats"] as const) {
      expect(await call(method, {})).to.deep.equal([`query ${method}`]);
    }
    expect(await call("facets", { type: "spans", field: "service" })).to.deep.equal(["query facets"]);
  });
});
