import { expect } from "chai";
import { getTraceOutline, traceOutlineTool } from "../../../daemon/mcp/tools/trace-outline.js";
import type { OutlineRow } from "../../../daemon/mcp/tools/trace-outline-rows.js";
import { nsToIso } from "../../../shared/time.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { exceptionEvent, withSpanExtras } from "../../helpers/span-extras.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const T0 = NOW - 60_000n * MS;
const TRACE = hexId(1, 16);
const MISSING_PARENT = "ffffffffffffffff";

type Spec = SpanSpec & { service: string; exception?: boolean };

/** The small trace: R(api) > B(db, error), A(api) > C(db, exception event); O(cache) names a missing parent. */
const SPECS: Spec[] = [
  { service: "api", traceId: TRACE, spanId: hexId(1, 8), name: "GET /cart", startNs: T0, durationNs: 100n * MS },
  {
    service: "db",
    traceId: TRACE,
    spanId: hexId(2, 8),
    parentSpanId: hexId(1, 8),
    name: "SELECT cart",
    startNs: T0 + 5n * MS,
    durationNs: 55n * MS,
    error: true,
  },
  {
    service: "api",
    traceId: TRACE,
    spanId: hexId(3, 8),
    parentSpanId: hexId(1, 8),
    name: "render",
    startNs: T0 + 10n * MS,
    durationNs: 20n * MS,
  },
  {
    service: "db",
    traceId: TRACE,
    spanId: hexId(4, 8),
    parentSpanId: hexId(3, 8),
    name: "SELECT price",
    startNs: T0 + 12n * MS + 1234n,
    durationNs: 3n * MS + 500n,
    exception: true,
  },
  {
    service: "cache",
    traceId: TRACE,
    spanId: hexId(5, 8),
    parentSpanId: MISSING_PARENT,
    name: "GET key",
    startNs: T0 + 50n * MS,
    durationNs: 5n * MS,
  },
];
/** Depth-first: R, B (starts before A), A, C, then the orphan O; with each one's depth. */
const EXPECTED: [number, number][] = [
  [0, 0],
  [1, 1],
  [2, 1],
  [3, 2],
  [4, 0],
];

function writeSpecs(store: TestStore, specs: readonly Spec[]) {
  for (const service of new Set(specs.map((s) => s.service))) {
    const own = specs.filter((s) => s.service === service);
    let request = traceRequest(service, own);
    for (const spec of own.filter((s) => s.exception))
      request = withSpanExtras(request, spec.spanId, {
        events: [exceptionEvent(spec.startNs + MS, "IOError", "boom", "at a\nat b")],
      });
    store.writeTraces(request);
  }
}

const ms = (ns: bigint) => Math.round(Number(ns) / 1000) / 1000;

function expectedRow(spec: Spec, depth: number, services: string[]): OutlineRow {
  const failed = spec.error === true || spec.exception === true;
  return [
    spec.spanId,
    spec.parentSpanId ?? null,
    spec.name as string,
    services.indexOf(spec.service),
    ms(spec.startNs - T0),
    ms(spec.durationNs as bigint),
    spec.error ? "error" : "unset",
    failed ? 1 : 0,
    depth,
  ];
}

describe("MCP get_trace_outline", () => {
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

  it("lists every span depth-first, children by start, orphans last, with offsets, durations and error markers", async () => {
    writeSpecs(store, SPECS);
    const { structured, summary } = await callTool(getTraceOutline, { trace_id: TRACE }, query.api);
    expect(structured.services.slice().sort()).to.deep.equal(["api", "cache", "db"]);
    expect(structured.rows).to.deep.equal(
      EXPECTED.map(([i, depth]) => expectedRow(SPECS[i] as Spec, depth, structured.services)),
    );
    expect(structured).to.deep.include({
      trace_id: TRACE,
      start: nsToIso(T0),
      duration_ms: 100,
      span_count: 5,
      offset: 0,
      deeper_spans: 0,
      truncated: false,
    });
    expect(structured.columns).to.deep.equal([
      "id",
      "parent",
      "name",
      "svc",
      "start_ms",
      "dur_ms",
      "status",
      "err",
      "depth",
    ]);
    // The slowest non-root span is B; two spans failed; then the critical path.
    expect(structured.next.map((n) => n.tool)).to.deep.equal([
      "get_span_details",
      "get_trace_errors",
      "get_critical_path",
    ]);
    expect(structured.next[0]?.arguments).to.deep.equal({ span_ids: [hexId(2, 8)], trace_id: TRACE });
    expect(summary).to.equal(`Trace ${TRACE}: 5 spans over 100 ms in 3 services; all of 5 rows shown.`);
  });

  it("cuts spans deeper than max_depth and says how many, and starts at an offset", async () => {
    writeSpecs(store, SPECS);
    const shallow = await callTool(getTraceOutline, { trace_id: TRACE, max_depth: 1 }, query.api);
    expect(shallow.structured.rows.map((row) => row[0])).to.deep.equal(
      EXPECTED.filter(([, depth]) => depth <= 1).map(([i]) => SPECS[i]?.spanId),
    );
    expect(shallow.structured.deeper_spans).to.equal(1);
    const later = await callTool(getTraceOutline, { trace_id: TRACE, offset: 2 }, query.api);
    expect(later.structured.rows.map((row) => row[0])).to.deep.equal(EXPECTED.slice(2).map(([i]) => SPECS[i]?.spanId));
    expect(later.structured.offset).to.equal(2);
  });

  it("reads at most its span cap: over it the answer is truncated, says so, and points at search_spans", async () => {
    writeSpecs(store, SPECS);
    const cap = SPECS.length - 2;
    const { structured, summary } = await callTool(traceOutlineTool(cap), { trace_id: TRACE }, query.api);
    // The first spans in start order are read, and every one of them is a row.
    const firstByStart = SPECS.slice()
      .sort((a, b) => Number(a.startNs - b.startNs))
      .slice(0, cap)
      .map((spec) => spec.spanId);
    expect(structured.rows.map((row) => row[0]).sort()).to.deep.equal(firstByStart.sort());
    expect(structured).to.deep.include({ spans_read: cap, trace_spans_over_cap: true, truncated: true });
    expect(structured.continuation).to.equal(undefined);
    expect(structured.next[0]).to.deep.include({
      tool: "search_spans",
      arguments: { trace_id: TRACE, lookback: "24h" },
    });
    expect(summary).to.contain(`more than ${cap} spans`);
    const whole = await callTool(traceOutlineTool(SPECS.length), { trace_id: TRACE }, query.api);
    expect(whole.structured).to.deep.include({
      spans_read: SPECS.length,
      trace_spans_over_cap: false,
      truncated: false,
    });
  });

  it("refuses an unknown trace with not_found", async () => {
    writeSpecs(store, SPECS);
    const failure = await getTraceOutline
      .run({ trace_id: hexId(99, 16) }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("not_found");
  });

  it("covers a 10,000-span trace through its continuations: every span once, depth-first, each answer in budget", async function () {
    // A real store answering 10,000 full spans for each of about 14 calls: seconds, not milliseconds.
    this.timeout(180_000);
    const names = ["GET /api/cart", "SELECT orders WHERE id = ?", "redis GET", "render template", "POST /checkout"];
    const services = ["frontend", "orders", "db"];
    const count = 10_000;
    const specs: Spec[] = Array.from({ length: count }, (_, i) => ({
      service: services[i % 3] as string,
      traceId: TRACE,
      spanId: hexId(i + 1, 8),
      ...(i === 0 ? {} : { parentSpanId: hexId(Math.floor((i - 1) / 4) + 1, 8) }),
      name: names[i % names.length] as string,
      startNs: T0 + BigInt(i) * 1000n,
      durationNs: BigInt(count - i) * 1000n,
      error: i % 97 === 0,
    }));
    writeSpecs(store, specs);
    // Node p's children are 4p+1..4p+4, started in that order.
    const expected: string[] = [];
    const visit = (i: number) => {
      expected.push(hexId(i + 1, 8));
      for (let c = 4 * i + 1; c <= 4 * i + 4 && c < count; c++) visit(c);
    };
    visit(0);
    const seen: string[] = [];
    let rowBytes = 0;
    let args: Record<string, unknown> = { trace_id: TRACE, max_bytes: 32768 };
    for (let calls = 0; calls < 100; calls++) {
      const { structured } = await callTool(getTraceOutline, args as { trace_id: string }, query.api);
      expect(structured.offset).to.equal(seen.length);
      expect(structured.rows.length, "progress").to.be.greaterThan(0);
      seen.push(...structured.rows.map((row) => row[0]));
      rowBytes += Buffer.byteLength(JSON.stringify(structured.rows)) - 1;
      if (!structured.truncated) break;
      args = structured.continuation?.arguments as Record<string, unknown>;
    }
    expect(seen).to.deep.equal(expected);
    // The target for the outline: at most 120 bytes a span.
    expect(rowBytes / count).to.be.at.most(120);
  });
});
