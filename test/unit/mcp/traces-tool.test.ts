import { expect } from "chai";
import { searchTraces } from "../../../daemon/mcp/tools/traces.js";
import { callTool, type StoreApi, storeApi } from "../../helpers/mcp-tools.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;

interface Written {
  traceId: string;
  service: string;
  operation: string;
  startNs: bigint;
  durationMs: number;
  spans: number;
  errors: number;
  route: string;
}

describe("MCP search_traces", () => {
  let store: TestStore;
  let query: StoreApi;
  let written: Written[];
  beforeEach(() => {
    store = testStore();
    written = [];
    // 30 traces, one a second back from NOW: a root and i % 3 children; every 4th has a failed child.
    for (let i = 0; i < 30; i++) {
      const traceId = hexId(i + 1, 16);
      const startNs = NOW - BigInt(i + 1) * 1000n * MS;
      const durationMs = 10 + i * 3;
      const service = i % 2 ? "api" : "worker";
      const operation = `op-${i % 5}`;
      const route = `/route/${i % 3}`;
      const children: SpanSpec[] = Array.from({ length: i % 3 }, (_, c) => ({
        traceId,
        spanId: hexId(1000 + i * 10 + c, 8),
        parentSpanId: hexId(i + 1, 8),
        name: `child-${c}`,
        startNs: startNs + MS,
        durationNs: 2n * MS,
        error: i % 4 === 0 && c === 0,
      }));
      store.writeTraces(
        traceRequest(service, [
          {
            traceId,
            spanId: hexId(i + 1, 8),
            name: operation,
            startNs,
            durationNs: BigInt(durationMs) * MS,
            attributes: { "http.route": route },
          },
          ...children,
        ]),
      );
      const errors = children.filter((child) => child.error).length;
      written.push({ traceId, service, operation, startNs, durationMs, spans: children.length + 1, errors, route });
    }
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("answers compact summaries, newest first, with the first failed trace's errors next", async () => {
    const { structured, summary } = await callTool(searchTraces, {}, query.api);
    const newest = written.slice(0, 20);
    expect(structured.traces.map((t) => t.trace_id)).to.deep.equal(newest.map((w) => w.traceId));
    for (const [i, trace] of structured.traces.entries()) {
      const w = newest[i] as Written;
      expect(trace).to.deep.include({
        service: w.service,
        operation: w.operation,
        duration_ms: w.durationMs,
        spans: w.spans,
        errors: w.errors,
        status: w.errors ? "error" : "ok",
      });
    }
    expect(structured.truncated).to.equal(true);
    expect(structured.continuation?.arguments).to.have.property("cursor").that.is.a("string");
    const failed = newest.find((w) => w.errors > 0) as Written;
    expect(structured.next[0]).to.deep.include({ tool: "get_trace_errors", arguments: { trace_id: failed.traceId } });
    const errorCount = newest.filter((w) => w.errors > 0).length;
    expect(summary).to.equal(`20 traces in the last 15m, ${errorCount} with errors; more on the continuation.`);
  });

  it("filters by service, status, root operation, min duration and attributes", async () => {
    const pick = async (args: Parameters<typeof searchTraces.run>[0]) =>
      (await callTool(searchTraces, { ...args, limit: 100 }, query.api)).structured.traces.map((t) => t.trace_id);
    const ids = (keep: (w: Written) => boolean) => written.filter(keep).map((w) => w.traceId);
    expect(await pick({ status: "error" })).to.deep.equal(ids((w) => w.errors > 0));
    expect(await pick({ service: "api" })).to.deep.equal(ids((w) => w.service === "api"));
    expect(await pick({ operation: "op-2" })).to.deep.equal(ids((w) => w.operation === "op-2"));
    expect(await pick({ min_duration_ms: 70 })).to.deep.equal(ids((w) => w.durationMs >= 70));
    expect(await pick({ attributes: { "http.route": "/route/1" }, status: "ok" })).to.deep.equal(
      ids((w) => w.route === "/route/1" && w.errors === 0),
    );
  });

  it("suggests the slowest trace's outline when none failed", async () => {
    const { structured } = await callTool(searchTraces, { status: "ok", limit: 5 }, query.api);
    const shown = written.filter((w) => w.errors === 0).slice(0, 5);
    const slowest = shown.reduce((a, b) => (b.durationMs > a.durationMs ? b : a));
    expect(structured.next[0]).to.deep.include({ tool: "get_trace_outline", arguments: { trace_id: slowest.traceId } });
  });

  it("pages within max_bytes: following the continuations lists every trace once, in order", async () => {
    const seen: string[] = [];
    let args: Record<string, unknown> = { limit: 100, max_bytes: 1024 };
    for (let calls = 0; calls < 100; calls++) {
      const { structured } = await callTool(searchTraces, args, query.api);
      expect(structured.traces.length, "progress").to.be.greaterThan(0);
      seen.push(...structured.traces.map((t) => t.trace_id));
      if (!structured.truncated) break;
      args = structured.continuation?.arguments as Record<string, unknown>;
      expect(args).to.include({ limit: 100, max_bytes: 1024 });
    }
    expect(seen).to.deep.equal(written.map((w) => w.traceId));
  });

  it("answers an empty window with list_services next", async () => {
    query.setNow(NOW + 3_600_000n * MS);
    const { structured, summary } = await callTool(searchTraces, {}, query.api);
    expect(structured.traces).to.deep.equal([]);
    expect(structured.truncated).to.equal(false);
    expect(structured.next[0]?.tool).to.equal("list_services");
    expect(summary).to.equal("No traces matched in the last 15m.");
  });
});
