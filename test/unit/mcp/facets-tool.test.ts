import { expect } from "chai";
import { type FacetsArgs, facets, searchByFacet } from "../../../daemon/mcp/tools/facets.js";
import { type QueryData, useQueryData } from "../../helpers/mcp-query-data.js";
import { callTool, type StoreApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import type { TestStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

describe("MCP facets", () => {
  const fixture = useQueryData(NOW);
  let store: TestStore;
  let query: StoreApi;
  let data: QueryData;
  beforeEach(() => {
    ({ store, query, data } = fixture);
  });

  it("lists an attribute's values with span counts, and the spans of the top value next", async () => {
    const { structured, summary } = await callTool(
      facets,
      { type: "traces", field: "attribute_values", key: "payment.method" },
      query.api,
    );
    const count = (value: string) => data.spans.filter((s) => s.attributes?.["payment.method"] === value).length;
    const values = ["card", "wallet"]
      .map((value) => ({ value, count: count(value) }))
      .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
    expect(structured.values).to.deep.equal(values);
    expect(structured).to.deep.include({ type: "traces", field: "attribute_values", key: "payment.method" });
    expect(structured.truncated).to.equal(false);
    expect(structured.next[0]).to.deep.equal({
      tool: "search_spans",
      arguments: { lookback: "15m", attributes: { "payment.method": values[0]?.value } },
      why: `spans with payment.method=${values[0]?.value}`,
    });
    expect(summary).to.match(/^2 values of traces attribute_values "payment\.method" in the last 15m/);
  });

  it("lists log severities and services, with search_logs of each as next", async () => {
    const { structured } = await callTool(facets, { type: "logs", field: "service" }, query.api);
    const count = (service: string) => data.logs.filter((log) => log.service === service).length;
    expect(structured.values).to.deep.equal([
      { value: "shop", count: count("shop") },
      { value: "billing", count: count("billing") },
    ]);
    expect(structured.next.map((call) => call.arguments)).to.deep.equal([
      { lookback: "15m", service: "shop" },
      { lookback: "15m", service: "billing" },
    ]);
    const keys = await callTool(facets, { type: "traces", field: "attribute_keys", service: "shop" }, query.api);
    expect(keys.structured.values.map((item) => item.value)).to.include.members(["db.statement", "http.route"]);
    expect(keys.structured.next[0]).to.deep.include({ tool: "facets" });
    expect(keys.structured.next[0]?.arguments).to.deep.include({ field: "attribute_values", service: "shop" });
  });

  it("says when values were left out, by max_bytes or by the limit, with the call that fetches them", async () => {
    const operations = Array.from({ length: 40 }, (_, i) => `op-${String(i).padStart(2, "0")}-${"y".repeat(50)}`);
    store.writeTraces(
      traceRequest(
        "many",
        operations.map((name, i) => ({
          traceId: hexId(700 + i, 16),
          spanId: hexId(700 + i, 8),
          name,
          startNs: NOW - 3000n * MS,
        })),
      ),
    );
    const cut = await callTool(facets, { type: "traces", field: "operation", max_bytes: 1024 }, query.api);
    expect(cut.structured.truncated).to.equal(true);
    expect(cut.structured.continuation?.arguments).to.deep.equal({
      type: "traces",
      field: "operation",
      max_bytes: 1024,
      offset: cut.structured.values.length,
    });
    const limited = await callTool(facets, { type: "traces", field: "operation", limit: 5 }, query.api);
    expect(limited.structured.values).to.have.length(5);
    expect(limited.structured.truncated).to.equal(true);
    expect(limited.structured.continuation?.arguments).to.deep.equal({
      type: "traces",
      field: "operation",
      limit: 5,
      offset: 5,
    });
    const after = await callTool(
      facets,
      limited.structured.continuation?.arguments as unknown as FacetsArgs,
      query.api,
    );
    expect(after.structured.offset).to.equal(5);
    expect(after.structured.values).to.have.length(5);
    const all = await callTool(facets, { type: "traces", field: "operation", limit: 500 }, query.api);
    expect([...limited.structured.values, ...after.structured.values]).to.deep.equal(
      all.structured.values.slice(0, 10),
    );
  });

  it("continues by offset through every value, at any max_bytes, the largest too", async () => {
    const operations = Array.from({ length: 40 }, (_, i) => `op-${String(i).padStart(2, "0")}-${"z".repeat(1500)}`);
    store.writeTraces(
      traceRequest(
        "wide",
        operations.map((name, i) => ({
          traceId: hexId(800 + i, 16),
          spanId: hexId(800 + i, 8),
          name,
          startNs: NOW - 3000n * MS,
        })),
      ),
    );
    for (const maxBytes of [4096, 32768]) {
      const seen: string[] = [];
      let args: FacetsArgs = { type: "traces", field: "operation", service: "wide", max_bytes: maxBytes };
      for (let page = 0; page < operations.length; page++) {
        const { structured } = await callTool(facets, args, query.api);
        expect(structured.values.length, "each page shows at least one value").to.be.greaterThan(0);
        seen.push(...structured.values.map((item) => item.value));
        if (!structured.truncated) break;
        args = structured.continuation?.arguments as unknown as FacetsArgs;
        expect(args.offset).to.equal(seen.length);
      }
      expect(seen, `max_bytes ${maxBytes}`).to.deep.equal(operations);
    }
  });

  it("maps each facet to the search that filters by its value", () => {
    expect(searchByFacet({ type: "metrics", field: "name" }, "tokens", "1h")).to.deep.include({
      tool: "describe_metric",
      arguments: { name: "tokens", lookback: "1h" },
    });
    expect(searchByFacet({ type: "logs", field: "scope" }, "test", "1h")).to.equal(null);
    expect(searchByFacet({ type: "traces", field: "status" }, "error", undefined)?.arguments).to.deep.equal({
      status: "error",
    });
  });

  it("lets the API refuse a field the type does not have", async () => {
    const failure = await facets
      .run({ type: "logs", field: "operation" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("invalid_argument");
  });
});
