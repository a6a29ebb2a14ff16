import { expect } from "chai";
import { criticalPathTool, getCriticalPath } from "../../../daemon/mcp/tools/critical-path.js";
import { callTool, type StoreApi, storeApi } from "../../helpers/mcp-tools.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const T0 = NOW - 60_000n * MS;
const TRACE = hexId(1, 16);

/** A root with `count` sequential children, child i over [10i + 1, 10i + 9] ms (9.5 when odd): 2·count + 1 stretches. */
function sequentialTrace(count: number): SpanSpec[] {
  return [
    { traceId: TRACE, spanId: hexId(0, 8), name: "root", startNs: T0, durationNs: BigInt(10 * count) * MS },
    ...Array.from({ length: count }, (_, i) => ({
      traceId: TRACE,
      spanId: hexId(i + 1, 8),
      parentSpanId: hexId(0, 8),
      name: `step-${i}`,
      startNs: T0 + BigInt(10 * i + 1) * MS,
      durationNs: 8n * MS + BigInt(i % 2) * 500_000n,
    })),
  ];
}

describe("MCP get_critical_path", () => {
  let store: TestStore;
  let query: StoreApi;
  beforeEach(() => {
    store = testStore();
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("answers the path as rows in time order, self times summing to the root's duration, heaviest first", async () => {
    const specs = sequentialTrace(3);
    store.writeTraces(traceRequest("api", specs));
    const { structured, summary } = await callTool(getCriticalPath, { trace_id: TRACE }, query.api);
    const ms = (ns: bigint) => Math.round(Number(ns) / 1000) / 1000;
    // root, step-0, root, step-1, root, step-2, root: each child bounded by the root's gaps.
    const expected: [string, bigint, bigint][] = [];
    let cursor = T0;
    for (const child of specs.slice(1)) {
      expected.push([hexId(0, 8), cursor, child.startNs]);
      expected.push([child.spanId, child.startNs, child.startNs + (child.durationNs as bigint)]);
      cursor = child.startNs + (child.durationNs as bigint);
    }
    expected.push([hexId(0, 8), cursor, T0 + (specs[0]?.durationNs as bigint)]);
    expect(structured.path.map((row) => [row.span_id, row.start_ms, row.self_ms])).to.deep.equal(
      expected.map(([id, from, to]) => [id, ms(from - T0), ms(to - from)]),
    );
    const total = structured.path.reduce((sum, row) => sum + row.self_ms, 0);
    expect(Math.round(total * 1000) / 1000).to.equal(structured.path_ms);
    expect(structured.path_ms).to.equal(ms(specs[0]?.durationNs as bigint));
    const selfBySpan = new Map<string, number>();
    for (const [id, from, to] of expected) selfBySpan.set(id, (selfBySpan.get(id) ?? 0) + ms(to - from));
    const heaviest = [...selfBySpan].sort((a, b) => b[1] - a[1])[0] as [string, number];
    expect(structured.heaviest[0]?.span_id).to.equal(heaviest[0]);
    expect(structured.root_span_id).to.equal(hexId(0, 8));
    expect(structured.next[0]).to.deep.include({ tool: "get_span_details" });
    expect(summary).to.match(new RegExp(`^Critical path of ${TRACE}: 7 stretches over ${structured.path_ms} ms`));
  });

  it("reads at most its span cap: over it the path covers the first spans, truncated, search_spans next", async () => {
    const specs = sequentialTrace(4);
    store.writeTraces(traceRequest("api", specs));
    const cap = 3;
    const { structured, summary } = await callTool(criticalPathTool(cap), { trace_id: TRACE }, query.api);
    // The root and the first two children (start order) are read: the path visits no later child.
    const read = new Set(specs.slice(0, cap).map((spec) => spec.spanId));
    expect(structured.path.every((row) => read.has(row.span_id))).to.equal(true);
    expect(structured.path.map((row) => row.span_id)).to.include(hexId(2, 8));
    expect(structured).to.deep.include({ spans_read: cap, trace_spans_over_cap: true, truncated: true });
    expect(structured.next[0]).to.deep.include({
      tool: "search_spans",
      arguments: { trace_id: TRACE, lookback: "24h" },
    });
    expect(summary).to.contain(`more than ${cap} spans`);
  });

  it("continues a long path past max_bytes with an offset: every stretch once", async () => {
    store.writeTraces(traceRequest("api", sequentialTrace(60)));
    const whole = await callTool(getCriticalPath, { trace_id: TRACE, max_bytes: 32768 }, query.api);
    expect(whole.structured.truncated).to.equal(false);
    const rows: unknown[] = [];
    let args: { trace_id: string; offset?: number; max_bytes?: number } = { trace_id: TRACE, max_bytes: 2048 };
    for (let calls = 0; calls < 100; calls++) {
      const { structured } = await callTool(getCriticalPath, args, query.api);
      expect(structured.offset).to.equal(rows.length);
      expect(structured.path.length, "progress").to.be.greaterThan(0);
      rows.push(...structured.path);
      if (!structured.truncated) break;
      args = structured.continuation?.arguments as typeof args;
    }
    expect(rows).to.deep.equal(whole.structured.path);
    expect(rows).to.have.length(121);
  });
});
