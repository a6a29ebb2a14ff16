import { expect } from "chai";
import { type SearchSpansArgs, searchSpans } from "../../../daemon/mcp/tools/spans.js";
import { FAILING, newestFirst, type QueryData, TRACES, useQueryData } from "../../helpers/mcp-query-data.js";
import { callTool, type StoreApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

describe("MCP search_spans", () => {
  const fixture = useQueryData(NOW);
  let query: StoreApi;
  let data: QueryData;
  beforeEach(() => {
    ({ query, data } = fixture);
  });

  it("lists the matching spans newest first as compact rows, with the first error's trace next", async () => {
    const { structured, summary } = await callTool(searchSpans, { service: "billing" }, query.api);
    const expected = newestFirst(data.spans.filter((span) => span.service === "billing"));
    expect(structured.spans.map((row) => row.span_id)).to.deep.equal(expected.map((span) => span.spanId));
    const failed = expected.find((span) => span.error);
    const row = structured.spans.find((r) => r.span_id === failed?.spanId);
    expect(row).to.deep.include({
      trace_id: failed?.traceId,
      parent_span_id: failed?.parentSpanId,
      name: "POST /pay",
      service: "billing",
      duration_ms: Number(failed?.durationNs) / 1e6,
      status: "error",
      message: failed?.statusMessage,
      more_attributes: 0,
    });
    expect(row?.attributes).to.deep.equal(failed?.attributes);
    expect(structured.truncated).to.equal(false);
    expect(structured.next.map((call) => call.tool)).to.deep.equal([
      "get_trace_outline",
      "get_span_details",
      "get_trace_errors",
    ]);
    expect(structured.next[0]?.arguments).to.deep.equal({ trace_id: failed?.traceId });
    expect(structured.next[1]?.arguments).to.deep.equal({ span_ids: [failed?.spanId], trace_id: failed?.traceId });
    expect(summary).to.equal(`${TRACES} spans in the last 15m.`);
  });

  it("maps parent_operation, status and attribute filters (exact and substring) to the API's", async () => {
    const byParent = await callTool(searchSpans, { parent_operation: "GET /cart", status: "error" }, query.api);
    expect(byParent.structured.spans.map((row) => row.trace_id).sort()).to.deep.equal(
      [...FAILING].map((i) => data.traceIds[i]).sort(),
    );
    const exact = await callTool(searchSpans, { attributes: { "payment.method": "card" } }, query.api);
    expect(exact.structured.spans).to.have.length(
      data.spans.filter((s) => s.attributes?.["payment.method"] === "card").length,
    );
    const contain = await callTool(searchSpans, { attributes_contain: { "db.statement": "where id = 3" } }, query.api);
    expect(contain.structured.spans.map((row) => row.span_id)).to.deep.equal(
      data.spans
        .filter((s) => s.attributes?.["db.statement"] === "SELECT * FROM cart WHERE id = 3")
        .map((s) => s.spanId),
    );
    const none = await callTool(searchSpans, { operation: "nothing" }, query.api);
    expect(none.structured.spans).to.deep.equal([]);
    expect(none.structured.next).to.deep.equal([]);
    expect(none.summary).to.equal("No spans match in the last 15m.");
  });

  it("names the slowest span when none failed", async () => {
    const { structured } = await callTool(searchSpans, { operation: "db.query" }, query.api);
    const slowest = data.spans
      .filter((s) => s.name === "db.query")
      .reduce((a, b) => ((a.durationNs ?? 0n) >= (b.durationNs ?? 0n) ? a : b));
    expect(structured.next[1]?.arguments).to.deep.equal({ span_ids: [slowest.spanId], trace_id: slowest.traceId });
    expect(structured.next[1]?.why).to.match(/slowest/);
  });

  it("cuts to max_bytes with a continuation whose cursor starts after the last row shown", async () => {
    const all = newestFirst(data.spans).map((span) => span.spanId);
    const seen: string[] = [];
    let args: SearchSpansArgs = { max_bytes: 1200 };
    for (let page = 0; page < all.length; page++) {
      const { structured } = await callTool(searchSpans, args, query.api);
      expect(structured.spans.length, "each page shows at least one span").to.be.greaterThan(0);
      seen.push(...structured.spans.map((row) => row.span_id));
      if (!structured.truncated) break;
      expect(structured.continuation?.tool).to.equal("search_spans");
      args = (structured.continuation?.arguments ?? {}) as SearchSpansArgs;
      expect(args.max_bytes).to.equal(1200);
    }
    expect(seen).to.deep.equal(all);
  });

  it("pages by limit with the API's cursor", async () => {
    const first = await callTool(searchSpans, { service: "shop", limit: 3 }, query.api);
    expect(first.structured.truncated).to.equal(true);
    const second = await callTool(
      searchSpans,
      (first.structured.continuation?.arguments ?? {}) as SearchSpansArgs,
      query.api,
    );
    const expected = newestFirst(data.spans.filter((s) => s.service === "shop")).map((s) => s.spanId);
    expect([...first.structured.spans, ...second.structured.spans].map((row) => row.span_id)).to.deep.equal(
      expected.slice(0, 6),
    );
  });

  it("lets the API refuse a bad window or page size", async () => {
    const zero = await searchSpans
      .run({ limit: 0 }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((zero as { code?: string }).code).to.equal("invalid_argument");
    const failure = await searchSpans
      .run({ lookback: "2d" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("invalid_argument");
  });
});
