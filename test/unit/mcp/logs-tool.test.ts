import { expect } from "chai";
import { argumentProblems } from "../../../daemon/mcp/mcp-tool-call.js";
import { LOG_BODY_CHARS, type SearchLogsArgs, searchLogs } from "../../../daemon/mcp/tools/logs.js";
import { FAILING, LONG_BODY, newestFirst, type QueryData, useQueryData } from "../../helpers/mcp-query-data.js";
import { callTool, type StoreApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { attributeList } from "../../helpers/otlp-builders.js";
import type { TestStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

describe("MCP search_logs", () => {
  const fixture = useQueryData(NOW);
  let store: TestStore;
  let query: StoreApi;
  let data: QueryData;
  beforeEach(() => {
    ({ store, query, data } = fixture);
  });

  it("lists logs newest first with their trace and span ids, long bodies cut with a marker", async () => {
    const { structured, summary } = await callTool(searchLogs, { service: "shop" }, query.api);
    const expected = newestFirst(data.logs.filter((log) => log.service === "shop"));
    expect(structured.logs.map((row) => row.body?.slice(0, 20))).to.deep.equal(
      expected.map((log) => log.body.slice(0, 20)),
    );
    const [long] = structured.logs;
    expect(long?.body).to.equal(`${LONG_BODY.slice(0, LOG_BODY_CHARS)}…[+${LONG_BODY.length - LOG_BODY_CHARS} chars]`);
    expect(long).to.deep.include({ trace_id: null, span_id: null, severity: "warn", service: "shop" });
    const traced = expected.find((log) => log.traceId);
    expect(structured.logs[1]).to.deep.include({ trace_id: traced?.traceId, span_id: traced?.spanId });
    expect(structured.next[0]).to.deep.equal({
      tool: "get_trace_outline",
      arguments: { trace_id: traced?.traceId },
      why: "the outline of the trace of the first log with a trace",
    });
    expect(structured.next[1]?.arguments).to.deep.equal({ trace_id: traced?.traceId, lookback: "24h" });
    expect(summary).to.equal(`${expected.length} logs in the last 15m.`);
  });

  it("searches the body by substring, case-insensitively, and filters by severity and attributes", async () => {
    const declined = await callTool(searchLogs, { body: "CARD DECLINED" }, query.api);
    expect(declined.structured.logs.map((row) => row.trace_id).sort()).to.deep.equal(
      [...FAILING].map((i) => data.traceIds[i]).sort(),
    );
    const errors = await callTool(searchLogs, { severity: "error" }, query.api);
    expect(errors.structured.logs).to.have.length(data.logs.filter((log) => log.severityNumber === 17).length);
    const wallet = await callTool(searchLogs, { attributes: { "payment.method": "wallet" } }, query.api);
    expect(wallet.structured.logs).to.have.length(
      data.logs.filter((log) => log.attributes?.["payment.method"] === "wallet").length,
    );
    const contain = await callTool(searchLogs, { attributes_contain: { "payment.method": "CAR" } }, query.api);
    expect(contain.structured.logs).to.have.length(
      data.logs.filter((log) => log.attributes?.["payment.method"] === "card").length,
    );
  });

  it("refuses more than 100 attribute filters as a bad argument, naming the bound, as the API does", async () => {
    const many = (n: number, from = 0) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, "v"]));
    const args = { attributes: many(50), attributes_contain: many(51, 50) };
    const failure = await searchLogs
      .run(args, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("invalid_argument");
    expect((failure as Error).message).to.equal(
      "101 attribute filters given (attr.KEY and attrContains.KEY): a query takes at most 100",
    );
  });

  it("finds every log of one trace and of one span", async () => {
    const traceId = data.traceIds[[...FAILING][0] ?? 0] ?? "";
    const ofTrace = await callTool(searchLogs, { trace_id: traceId, lookback: "24h" }, query.api);
    expect(ofTrace.structured.logs).to.have.length(data.logs.filter((log) => log.traceId === traceId).length);
    expect(ofTrace.structured.next.map((call) => call.tool)).to.deep.equal(["get_trace_outline", "get_span_details"]);
    const spanId = data.logs.find((log) => log.traceId === traceId && log.service === "billing")?.spanId ?? "";
    const ofSpan = await callTool(searchLogs, { trace_id: traceId, span_id: spanId }, query.api);
    expect(ofSpan.structured.logs.map((row) => row.span_id)).to.deep.equal([spanId]);
  });

  it("answers null for a severity and a body the record does not have, as the API does", async () => {
    const bare = { timeUnixNano: String(NOW - 500n * MS), attributes: attributeList({ bare: "yes" }) };
    store.writeLogs({
      resourceLogs: [
        {
          resource: { attributes: attributeList({ "service.name": "bare" }) },
          scopeLogs: [{ scope: { name: "test" }, logRecords: [bare] }],
        },
      ],
    });
    const api = (await query.api.searchLogs({ service: "bare" })).data;
    expect(api.map((log) => [log.severityText, log.severityNumber, log.body])).to.deep.equal([[null, 0, null]]);
    const { structured } = await callTool(searchLogs, { service: "bare" }, query.api);
    expect(structured.logs).to.have.length(1);
    expect(structured.logs[0]).to.deep.include({ severity: null, body: null });
  });

  it("refuses an empty key in attributes_contain up front, as in attributes", async () => {
    for (const args of [{ attributes: { "": "x" } }, { attributes_contain: { "": "x" } }]) {
      expect(argumentProblems(searchLogs, args), JSON.stringify(args)).to.match(/has an empty key/);
    }
  });

  it("pages within max_bytes through every log", async () => {
    const all = newestFirst(data.logs).map((log) => log.body.slice(0, 20));
    const seen: string[] = [];
    let args: SearchLogsArgs = { max_bytes: 1500 };
    for (let page = 0; page < all.length; page++) {
      const { structured } = await callTool(searchLogs, args, query.api);
      expect(structured.logs.length).to.be.greaterThan(0);
      seen.push(...structured.logs.map((row) => row.body?.slice(0, 20) ?? ""));
      if (!structured.truncated) break;
      args = (structured.continuation?.arguments ?? {}) as SearchLogsArgs;
    }
    expect(seen).to.deep.equal(all);
  });
});
