import { expect } from "chai";
import { listServices } from "../../../daemon/mcp/tools/services.js";
import { nsToIso } from "../../../shared/time.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

describe("MCP list_services", () => {
  let store: TestStore;
  let query: StoreApi;
  beforeEach(() => {
    store = testStore();
    for (let i = 0; i < 30; i++) {
      const service = `service-${String(i).padStart(2, "0")}-${"x".repeat(40)}`;
      store.writeTraces(
        traceRequest(service, [
          // Newest last by name: the order by activity is not the order by name.
          { traceId: hexId(i + 1, 16), spanId: hexId(i + 1, 8), startNs: NOW - BigInt(30 - i) * 1000n * MS },
        ]),
      );
    }
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("lists the services of the window, newest first, with search_traces as the next call", async () => {
    const { structured, summary } = await callTool(listServices, {}, query.api);
    expect(structured.services.map((s) => s.name).slice(0, 2)).to.deep.equal([
      `service-29-${"x".repeat(40)}`,
      `service-28-${"x".repeat(40)}`,
    ]);
    expect(structured.services).to.have.length(30);
    // Each service's newest span started (30 - i) seconds before NOW.
    expect(structured.services[0]).to.deep.equal({
      name: `service-29-${"x".repeat(40)}`,
      last_seen_at: nsToIso(NOW - 1000n * MS),
    });
    expect(structured.truncated).to.equal(false);
    expect(structured.next[0]).to.deep.equal({
      tool: "search_traces",
      arguments: { service: `service-29-${"x".repeat(40)}`, lookback: "15m" },
      why: `the latest traces of service-29-${"x".repeat(40)}`,
    });
    expect(summary).to.equal("30 services in the last 15m.");
  });

  it("keeps within max_bytes and says so", async () => {
    const { structured, summary } = await callTool(listServices, { max_bytes: 1024 }, query.api);
    expect(structured.truncated).to.equal(true);
    expect(structured.services.length).to.be.within(1, 29);
    expect(summary).to.match(/^30 services in the last 15m; \d+ shown within max_bytes\.$/);
  });

  it("continues by offset, so every service is listed once however small max_bytes", async () => {
    const seen: string[] = [];
    let args: { max_bytes: number; offset?: number } = { max_bytes: 1024 };
    for (let page = 0; page < 30; page++) {
      const { structured, summary } = await callTool(listServices, args, query.api);
      expect(structured.offset).to.equal(args.offset ?? 0);
      expect(structured.services.length, "each page shows at least one service").to.be.greaterThan(0);
      seen.push(...structured.services.map((service) => service.name));
      if (page > 0) expect(summary).to.match(new RegExp(`; \\d+ shown from ${args.offset}`));
      if (!structured.truncated) break;
      expect(structured.continuation?.tool).to.equal("list_services");
      args = structured.continuation?.arguments as typeof args;
      expect(args).to.deep.equal({ max_bytes: 1024, offset: seen.length });
    }
    expect(seen).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => `service-${String(29 - i).padStart(2, "0")}-${"x".repeat(40)}`),
    );
  });

  it("refuses a window the API refuses, with the API's message", async () => {
    const failure = await listServices
      .run({ lookback: "48h" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as { code?: string }).code).to.equal("invalid_argument");
    expect((failure as Error).message).to.match(/24h/);
  });
});
