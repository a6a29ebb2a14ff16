import { Ajv } from "ajv";
import { expect } from "chai";
import type { NextCall } from "../../../daemon/mcp/mcp-tool.js";
import { MCP_TOOLS } from "../../../daemon/mcp/tool-list.js";
import { ALL_ANOMALIES, auditScenario } from "../../helpers/audit-scenario.js";
import { writeMetricData } from "../../helpers/mcp-metric-data.js";
import { writeQueryData } from "../../helpers/mcp-query-data.js";
import { callTool, type StoreApi, storeApi } from "../../helpers/mcp-tools.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW_MS = 1_800_000_000_000;
const NOW = BigInt(NOW_MS) * MS;

/** Calls of the query tools, each of which answers with next calls (and some with continuations). */
const CALLS: [string, Record<string, unknown>][] = [
  ["search_spans", { service: "billing", max_bytes: 1024 }],
  ["search_spans", { operation: "db.query" }],
  ["search_logs", { severity: "error" }],
  ["search_logs", { max_bytes: 1500 }],
  ["trace_stats", { group_by: "attr.http.status_code", agg: "error_rate" }],
  ["trace_stats", { group_by: "service", agg: "p95_duration" }],
  ["log_stats", { group_by: "service" }],
  ["facets", { type: "traces", field: "attribute_keys" }],
  ["facets", { type: "traces", field: "attribute_values", key: "payment.method" }],
  ["facets", { type: "metrics", field: "name" }],
  ["facets", { type: "metrics", field: "service" }],
  ["facets", { type: "logs", field: "severity", limit: 1 }],
  ["run_audit", { until: new Date(NOW_MS).toISOString() }],
  ["run_audit", { until: new Date(NOW_MS).toISOString(), max_bytes: 2048 }],
  ["list_metrics", { limit: 1 }],
  ["query_metric", { name: "tokens" }],
  ["query_metric", { name: "queue.depth", group_by: ["attr.queue"], step: "10s", max_bytes: 2048 }],
  ["describe_metric", { name: "queue.depth" }],
];

describe("MCP query tools' next and continuation calls", () => {
  let store: TestStore;
  let query: StoreApi;
  before(() => {
    store = testStore();
    writeQueryData(store, NOW);
    writeMetricData(store, NOW);
    for (const request of auditScenario(NOW_MS, ALL_ANOMALIES).traces) store.writeTraces(request);
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  after(() => {
    query.close();
    store.close();
  });

  it("name arguments the called tool's input schema accepts", async () => {
    const ajv = new Ajv({ strict: false });
    const tools = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));
    const checked = new Set<string>();
    for (const [name, args] of CALLS) {
      const tool = tools.get(name);
      if (!tool) throw new Error(`no tool ${name}`);
      const { structured } = await callTool(tool, args, query.api);
      const calls: NextCall[] = [...structured.next, ...(structured.continuation ? [structured.continuation] : [])];
      expect(calls.length, `${name} ${JSON.stringify(args)} next`).to.be.greaterThan(0);
      for (const call of calls) {
        const target = tools.get(call.tool);
        // The trace tools are another part's; their names and arguments are checked where they are listed.
        if (!target) continue;
        const valid = ajv.compile(target.inputSchema);
        expect(
          valid(call.arguments),
          `${name} -> ${call.tool} ${JSON.stringify(call.arguments)}: ${ajv.errorsText(valid.errors)}`,
        ).to.equal(true);
        checked.add(call.tool);
      }
    }
    expect([...checked].sort()).to.include.members([
      "describe_metric",
      "facets",
      "query_metric",
      "search_logs",
      "search_spans",
    ]);
  });
});
