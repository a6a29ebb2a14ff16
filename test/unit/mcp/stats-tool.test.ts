import { expect } from "chai";
import { groupFilter, logStats, traceStats } from "../../../daemon/mcp/tools/stats.js";
import { FAILING, type QueryData, TRACES, useQueryData } from "../../helpers/mcp-query-data.js";
import { callTool, type StoreApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import type { TestStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

describe("MCP trace_stats and log_stats", () => {
  const fixture = useQueryData(NOW);
  let store: TestStore;
  let query: StoreApi;
  let data: QueryData;
  beforeEach(() => {
    ({ store, query, data } = fixture);
  });

  it("counts traces per root operation, with the worst group's traces next", async () => {
    const { structured, summary } = await callTool(
      traceStats,
      { group_by: "operation", agg: "count", lookback: "1h" },
      query.api,
    );
    expect(structured).to.deep.include({ group_by: "operation", agg: "count", unit: "traces", lookback: "1h" });
    expect(structured.rows).to.deep.equal([{ group: "GET /cart", value: TRACES, count: TRACES }]);
    expect(structured.next).to.deep.equal([
      {
        tool: "search_traces",
        arguments: { lookback: "1h", operation: "GET /cart" },
        why: "the traces of the worst group (GET /cart)",
      },
    ]);
    expect(summary).to.match(
      /^1 groups by operation in the last 1h; largest count: "GET \/cart" with 8 traces over 8\.$/,
    );
  });

  it("error rate by root attribute: the failing group's error traces next, then its operations", async () => {
    const { structured } = await callTool(
      traceStats,
      { group_by: "attr.http.status_code", agg: "error_rate" },
      query.api,
    );
    expect(structured.rows).to.deep.equal([
      { group: "500", value: 1, count: FAILING.size },
      { group: "200", value: 0, count: TRACES - FAILING.size },
    ]);
    expect(structured.next[0]).to.deep.equal({
      tool: "search_traces",
      arguments: { lookback: "15m", attributes: { "http.status_code": "500" }, status: "error" },
      why: "the traces of the worst group (500)",
    });
    expect(structured.next[1]).to.deep.include({ tool: "trace_stats" });
    expect(structured.next[1]?.arguments).to.deep.equal({
      lookback: "15m",
      attributes: { "http.status_code": "500" },
      group_by: "operation",
      agg: "error_rate",
    });
  });

  it("computes p95 durations of the filtered traces", async () => {
    const { structured } = await callTool(
      traceStats,
      { group_by: "service", agg: "p95_duration", min_duration_ms: 100 },
      query.api,
    );
    // A trace lasts from its root's start to its latest end: the root here.
    const durations = data.spans
      .filter((span) => span.name === "GET /cart")
      .map((span) => Number(span.durationNs) / 1e6)
      .filter((ms) => ms >= 100)
      .sort((a, b) => a - b);
    expect(structured.rows).to.deep.equal([
      {
        group: "shop",
        value: durations[Math.ceil(0.95 * durations.length) - 1],
        count: durations.length,
      },
    ]);
  });

  it("counts logs per severity, with the largest group's logs and its severities next", async () => {
    const { structured } = await callTool(logStats, { group_by: "service" }, query.api);
    const count = (service: string) => data.logs.filter((log) => log.service === service).length;
    expect(structured.rows).to.deep.equal([
      { group: "shop", value: count("shop"), count: count("shop") },
      { group: "billing", value: count("billing"), count: count("billing") },
    ]);
    expect(structured.unit).to.equal("logs");
    expect(structured.next.map((call) => [call.tool, call.arguments])).to.deep.equal([
      ["search_logs", { lookback: "15m", service: "shop" }],
      ["log_stats", { lookback: "15m", service: "shop", group_by: "severity" }],
    ]);
    const bySeverity = await callTool(logStats, { group_by: "severity", body: "declined" }, query.api);
    expect(bySeverity.structured.rows).to.deep.equal([{ group: "error", value: FAILING.size, count: FAILING.size }]);
  });

  it("keeps the largest rows within max_bytes and says so", async () => {
    const operations = Array.from({ length: 30 }, (_, i) => `op-${String(i).padStart(2, "0")}-${"x".repeat(60)}`);
    store.writeTraces(
      traceRequest(
        "many",
        operations.map((name, i) => ({
          traceId: hexId(900 + i, 16),
          spanId: hexId(900 + i, 8),
          name,
          startNs: NOW - 5000n * MS,
        })),
      ),
    );
    const whole = await callTool(traceStats, { group_by: "operation", agg: "count", max_bytes: 32768 }, query.api);
    expect(whole.structured.truncated).to.equal(false);
    expect(whole.structured.rows).to.have.length(operations.length + 1);
    const { structured, summary } = await callTool(
      traceStats,
      { group_by: "operation", agg: "count", max_bytes: 1024 },
      query.api,
    );
    expect(structured.truncated).to.equal(true);
    expect(structured.rows.length).to.be.within(1, operations.length);
    expect(structured.rows).to.deep.equal(whole.structured.rows.slice(0, structured.rows.length));
    expect(structured.continuation).to.deep.equal({
      tool: "trace_stats",
      arguments: { group_by: "operation", agg: "count", max_bytes: 32768 },
      why: "the rows cut to fit max_bytes",
    });
    expect(summary).to.match(new RegExp(`; ${structured.rows.length} shown within max_bytes\\.$`));
  });

  it("maps a group to the filter that finds it, or none", () => {
    expect(groupFilter("service", "shop", ["service"])).to.deep.equal({ service: "shop" });
    expect(groupFilter("attr.a.b", "1", [])).to.deep.equal({ attributes: { "a.b": "1" } });
    expect(groupFilter("scope", "test", ["service", "severity"])).to.equal(null);
    expect(groupFilter("service", null, ["service"])).to.equal(null);
  });

  it("lets the API refuse an unknown grouping", async () => {
    const failure = await logStats
      .run({ group_by: "colour" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("invalid_argument");
    expect((failure as Error).message).to.match(/groupBy/);
  });
});
