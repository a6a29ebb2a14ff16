import { expect } from "chai";
import { getTraceErrors, traceErrorsTool } from "../../../daemon/mcp/tools/trace-errors.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, type LogSpec, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { exceptionEvent, withSpanExtras } from "../../helpers/span-extras.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const T0 = NOW - 60_000n * MS;
const TRACE = hexId(1, 16);
const QUIET_TRACE = hexId(2, 16);
const ROOT = hexId(1, 8);
const FAILED = hexId(2, 8);
const THROWN = hexId(3, 8);
const STACK = Array.from({ length: 20 }, (_, i) => `at frame${i}`).join("\n");

describe("MCP get_trace_errors", () => {
  let store: TestStore;
  let query: StoreApi;
  let logs: LogSpec[];
  beforeEach(() => {
    store = testStore();
    store.writeTraces(
      withSpanExtras(
        traceRequest("api", [
          { traceId: TRACE, spanId: ROOT, name: "GET /order", startNs: T0, durationNs: 50n * MS },
          { traceId: TRACE, spanId: THROWN, parentSpanId: ROOT, name: "render", startNs: T0 + 10n * MS },
          { traceId: QUIET_TRACE, spanId: hexId(9, 8), name: "GET /health", startNs: T0 },
        ]),
        THROWN,
        { events: [exceptionEvent(T0 + 11n * MS, "TypeError", "x is undefined", STACK)] },
      ),
    );
    store.writeTraces(
      traceRequest("db", [
        {
          traceId: TRACE,
          spanId: FAILED,
          parentSpanId: ROOT,
          name: "UPDATE orders",
          startNs: T0 + 5n * MS,
          durationNs: 3n * MS,
          error: true,
          statusMessage: "deadlock detected",
        },
      ]),
    );
    // Severities 9 (info), 17 (error), 13 (warn), 5 (debug), one a millisecond apart.
    logs = [9, 17, 13, 5].map((severityNumber, i) => ({
      timeNs: T0 + BigInt(i + 1) * MS,
      body: `log ${i} at ${severityNumber}`,
      severityNumber,
      traceId: TRACE,
      spanId: i === 1 ? FAILED : ROOT,
    }));
    store.writeLogs(logsRequest("api", [...logs, { timeNs: T0, body: "another trace", traceId: QUIET_TRACE }]));
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("lists error spans with their messages and exceptions, then the trace's logs, warnings first", async () => {
    const { structured, summary } = await callTool(getTraceErrors, { trace_id: TRACE }, query.api);
    expect(structured.error_spans).to.deep.equal([
      {
        span_id: FAILED,
        name: "UPDATE orders",
        service: "db",
        start_ms: 5,
        duration_ms: 3,
        status_message: "deadlock detected",
        exceptions: [],
      },
      {
        span_id: THROWN,
        name: "render",
        service: "api",
        start_ms: 10,
        duration_ms: 1,
        status_message: null,
        exceptions: [
          {
            type: "TypeError",
            message: "x is undefined",
            stack: `${STACK.split("\n").slice(0, 8).join("\n")}\n…[+12 lines]`,
          },
        ],
      },
    ]);
    const newestFirst = [...logs].reverse();
    const expected = [
      ...newestFirst.filter((l) => (l.severityNumber ?? 0) >= 13),
      ...newestFirst.filter((l) => (l.severityNumber ?? 0) < 13),
    ];
    expect(structured.logs.map((l) => l.body)).to.deep.equal(expected.map((l) => l.body));
    const names: Record<number, string> = { 5: "debug", 9: "info", 13: "warn", 17: "error" };
    expect(structured.logs.map((l) => l.severity)).to.deep.equal(expected.map((l) => names[l.severityNumber ?? 0]));
    expect(structured.logs.find((l) => l.span_id === FAILED)?.body).to.equal(logs[1]?.body);
    expect(structured).to.deep.include({ error_span_count: 2, log_count: 4, more_logs: false, truncated: false });
    // The span that threw comes first in next: an exception says more than an error status.
    expect(structured.next.slice(0, 2)).to.deep.equal([
      {
        tool: "get_span_details",
        arguments: { span_ids: [THROWN], trace_id: TRACE },
        why: "the likeliest cause (render): attributes and events",
      },
      {
        tool: "search_logs",
        arguments: { trace_id: TRACE, span_id: THROWN, lookback: "24h" },
        why: "the logs written during render",
      },
    ]);
    expect(summary).to.equal(`Trace ${TRACE}: 2 error spans of 3; 4 correlated logs (2 warnings or worse).`);
  });

  it("points next at the failed child rather than the parent that passed its failure up", async () => {
    const chain = hexId(77, 16);
    store.writeTraces(
      traceRequest("api", [
        { traceId: chain, spanId: hexId(71, 8), name: "POST /pay", startNs: T0, durationNs: 9n * MS, error: true },
        {
          traceId: chain,
          spanId: hexId(72, 8),
          parentSpanId: hexId(71, 8),
          name: "charge",
          startNs: T0 + MS,
          error: true,
        },
      ]),
    );
    const { structured } = await callTool(getTraceErrors, { trace_id: chain }, query.api);
    expect(structured.error_spans.map((span) => span.name)).to.deep.equal(["POST /pay", "charge"]);
    expect(structured.next[0]?.arguments).to.deep.equal({ span_ids: [hexId(72, 8)], trace_id: chain });
  });

  it("answers a trace without errors with its outline next", async () => {
    const { structured } = await callTool(getTraceErrors, { trace_id: QUIET_TRACE }, query.api);
    expect(structured.error_spans).to.deep.equal([]);
    expect(structured.logs.map((l) => l.body)).to.deep.equal(["another trace"]);
    expect(structured.next[0]).to.deep.include({ tool: "get_trace_outline", arguments: { trace_id: QUIET_TRACE } });
  });

  it("continues past max_bytes with an offset: every error span and log once", async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      timeNs: T0 + BigInt(100 + i) * MS,
      body: `bulk log ${i} ${"z".repeat(60)}`,
      severityNumber: i % 2 ? 9 : 17,
      traceId: TRACE,
    }));
    store.writeLogs(logsRequest("api", many));
    const spans: string[] = [];
    const bodies: string[] = [];
    let args: { trace_id: string; offset?: number; max_bytes?: number } = { trace_id: TRACE, max_bytes: 1024 };
    for (let calls = 0; calls < 50; calls++) {
      const { structured } = await callTool(getTraceErrors, args, query.api);
      expect(structured.offset).to.equal(spans.length + bodies.length);
      expect(structured.error_spans.length + structured.logs.length, "progress").to.be.greaterThan(0);
      spans.push(...structured.error_spans.map((s) => s.span_id));
      bodies.push(...structured.logs.map((l) => l.body ?? ""));
      if (!structured.truncated) break;
      args = structured.continuation?.arguments as typeof args;
    }
    expect(spans).to.deep.equal([FAILED, THROWN]);
    // At 1024 bytes a body may come cut short (with the marker): compare the start that names each log.
    const named = (body: string) => /^(bulk log \d+|log \d+ at \d+)/.exec(body)?.[1];
    expect(bodies.map(named).sort()).to.deep.equal([...logs, ...many].map((l) => named(l.body)).sort());
    expect(bodies.length).to.equal(logs.length + many.length);
  });

  it("is truncated when the trace has more logs than it reads, and leads to search_logs for the rest", async () => {
    // One more than the logs a call reads, all in the answer's budget but for the cap.
    const extra = Array.from({ length: 501 - logs.length }, (_, i) => ({
      timeNs: T0 + BigInt(200 + i) * MS,
      body: `extra ${i}`,
      severityNumber: 9,
      traceId: TRACE,
    }));
    store.writeLogs(logsRequest("api", extra));
    // Followed to its last part: that part has nothing left for max_bytes, yet logs were left out.
    let args: { trace_id: string; offset?: number; max_bytes?: number } = { trace_id: TRACE, max_bytes: 32768 };
    let shown = 0;
    let last = await callTool(getTraceErrors, args, query.api);
    for (let calls = 0; calls < 20; calls++) {
      shown += last.structured.logs.length;
      if (last.structured.continuation === undefined) break;
      args = last.structured.continuation.arguments as typeof args;
      last = await callTool(getTraceErrors, args, query.api);
    }
    const { structured, summary } = last;
    expect(structured.continuation).to.equal(undefined);
    expect(shown).to.equal(500);
    expect(structured.log_count).to.equal(500);
    expect(structured.more_logs).to.equal(true);
    expect(structured.truncated).to.equal(true);
    expect(structured.next).to.deep.include({
      tool: "search_logs",
      arguments: { trace_id: TRACE, lookback: "24h" },
      why: "the trace's logs past the first 500, paged",
    });
    expect(summary).to.contain("more than 500 logs");
    // A trace whose logs are all read is not truncated.
    const quiet = await callTool(getTraceErrors, { trace_id: QUIET_TRACE }, query.api);
    expect(quiet.structured).to.deep.include({ more_logs: false, truncated: false });
  });

  it("reads at most its span cap: over it the answer is truncated and leads to search_spans for error spans", async () => {
    const { structured, summary } = await callTool(traceErrorsTool(2), { trace_id: TRACE }, query.api);
    // In start order the first two spans are the root and FAILED (THROWN starts later).
    expect(structured.error_spans.map((span) => span.span_id)).to.deep.equal([FAILED]);
    expect(structured).to.deep.include({ spans_read: 2, trace_spans_over_cap: true, truncated: true });
    // The likeliest cause among the spans read stays first; the search for the rest follows.
    expect(structured.next[0]).to.deep.include({ tool: "get_span_details" });
    expect(structured.next[1]).to.deep.include({
      tool: "search_spans",
      arguments: { trace_id: TRACE, lookback: "24h", status: "error" },
    });
    expect(summary).to.contain("more than 2 spans");
  });

  it("refuses an unknown trace with not_found", async () => {
    const failure = await getTraceErrors
      .run({ trace_id: hexId(99, 16) }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("not_found");
  });
});
