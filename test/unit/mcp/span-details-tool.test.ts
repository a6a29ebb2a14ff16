import { expect } from "chai";
import { ToolInputError } from "../../../daemon/mcp/mcp-tool.js";
import { getSpanDetails } from "../../../daemon/mcp/tools/span-details.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { exceptionEvent, withSpanExtras } from "../../helpers/span-extras.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const T0 = NOW - 60_000n * MS;
const TRACE = hexId(1, 16);
const OTHER_TRACE = hexId(2, 16);
const LINKED_TRACE = hexId(3, 16);
const ROOT = hexId(1, 8);
const CHILD = hexId(2, 8);
const LONG = "x".repeat(5000);
const STACK = Array.from({ length: 300 }, (_, i) => `    at frame${i} (app.js:${i}:1)`).join("\n");

describe("MCP get_span_details", () => {
  let store: TestStore;
  let query: StoreApi;
  beforeEach(() => {
    store = testStore();
    store.writeTraces(
      withSpanExtras(
        traceRequest("api", [
          {
            traceId: TRACE,
            spanId: ROOT,
            name: "checkout",
            startNs: T0,
            durationNs: 40n * MS,
            error: true,
            statusMessage: "card declined",
            attributes: { "http.route": "/checkout", big: LONG },
          },
        ]),
        ROOT,
        {
          events: [exceptionEvent(T0 + 30n * MS, "CardError", "declined by issuer", STACK)],
          links: [{ traceId: LINKED_TRACE, spanId: hexId(9, 8), attributes: { reason: "retry" } }],
        },
      ),
    );
    store.writeTraces(
      traceRequest("payments", [
        { traceId: TRACE, spanId: CHILD, parentSpanId: ROOT, name: "charge", startNs: T0 + MS, durationNs: 20n * MS },
      ]),
    );
    // The same span id in a newer trace: only trace_id tells them apart.
    store.writeTraces(
      traceRequest("other", [{ traceId: OTHER_TRACE, spanId: CHILD, name: "elsewhere", startNs: T0 + 10_000n * MS }]),
    );
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("answers attributes, exception events, links, resource, scope and status, long strings cut with the marker", async () => {
    const { structured, summary } = await callTool(getSpanDetails, { span_ids: [ROOT] }, query.api);
    const [span] = structured.spans;
    expect(span).to.deep.include({
      span_id: ROOT,
      trace_id: TRACE,
      parent_span_id: null,
      name: "checkout",
      service: "api",
      kind: "server",
      duration_ms: 40,
      status: { code: "error", message: "card declined" },
      links: [{ trace_id: LINKED_TRACE, span_id: hexId(9, 8), attributes: { reason: "retry" } }],
      scope: { name: "test", version: null },
    });
    expect(span?.attributes["http.route"]).to.equal("/checkout");
    expect(span?.attributes.big).to.equal(`${"x".repeat(2000)}…[+3000 chars]`);
    expect(span?.resource["service.name"]).to.equal("api");
    const event = span?.events[0];
    expect(event?.name).to.equal("exception");
    expect(event?.attributes).to.deep.equal({});
    expect(event?.exception).to.deep.include({ type: "CardError", message: "declined by issuer" });
    expect(event?.exception?.stack).to.equal(`${STACK.slice(0, 4000)}…[+${STACK.length - 4000} chars]`);
    expect(structured.not_found).to.deep.equal([]);
    expect(structured.truncated).to.equal(false);
    expect(structured.next[0]).to.deep.equal({
      tool: "search_logs",
      arguments: { trace_id: TRACE, span_id: ROOT, lookback: "24h" },
      why: "the logs written during checkout",
    });
    expect(summary).to.equal("1 of 1 spans.");
  });

  it("picks the span of the named trace when its id repeats, and points at its parent", async () => {
    const newest = await callTool(getSpanDetails, { span_ids: [CHILD] }, query.api);
    expect(newest.structured.spans[0]?.name).to.equal("elsewhere");
    const inTrace = await callTool(getSpanDetails, { span_ids: [CHILD], trace_id: TRACE }, query.api);
    expect(inTrace.structured.spans[0]).to.deep.include({ name: "charge", trace_id: TRACE, parent_span_id: ROOT });
    expect(inTrace.structured.next[1]).to.deep.include({
      tool: "get_span_details",
      arguments: { span_ids: [ROOT], trace_id: TRACE },
    });
  });

  it("points at a span's parent only where the parent is stored", async () => {
    // A span whose parent never arrived, its id also in a newer trace whose parent is missing too.
    const orphanTrace = hexId(4, 16);
    const newerTrace = hexId(5, 16);
    const orphan = hexId(40, 8);
    store.writeTraces(
      traceRequest("worker", [
        { traceId: orphanTrace, spanId: orphan, parentSpanId: hexId(41, 8), name: "job", startNs: T0, durationNs: MS },
      ]),
    );
    store.writeTraces(
      traceRequest("worker", [
        {
          traceId: newerTrace,
          spanId: orphan,
          parentSpanId: hexId(42, 8),
          name: "job again",
          startNs: T0 + 20_000n * MS,
          durationNs: MS,
        },
      ]),
    );
    for (const args of [{ span_ids: [orphan] }, { span_ids: [orphan], trace_id: orphanTrace }]) {
      const { structured } = await callTool(getSpanDetails, args, query.api);
      expect(structured.spans).to.have.length(1);
      expect(
        structured.next.map((call) => call.tool),
        JSON.stringify(args),
      ).to.deep.equal(["search_logs", "get_trace_outline"]);
    }
  });

  it("lists the ids it did not find, and fails with not_found only when none is found", async () => {
    const missing = hexId(77, 8);
    const { structured, summary } = await callTool(getSpanDetails, { span_ids: [missing, ROOT] }, query.api);
    expect(structured.spans.map((s) => s.span_id)).to.deep.equal([ROOT]);
    expect(structured.not_found).to.deep.equal([missing]);
    expect(summary).to.equal(`1 of 2 spans; not found: ${missing}.`);
    const failure = await getSpanDetails
      .run({ span_ids: [missing], trace_id: TRACE }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((failure as { code?: string }).code).to.equal("not_found");
  });

  it("refuses more than 20 ids, saying the cap", async () => {
    const ids = Array.from({ length: 21 }, (_, i) => hexId(100 + i, 8));
    const failure = await getSpanDetails
      .run({ span_ids: ids }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e) => e);
    expect(failure).to.be.instanceOf(ToolInputError);
    expect((failure as Error).message).to.match(/at most 20 span ids/);
  });

  it("shrinks spans to fit max_bytes, then continues with the ids left out", async () => {
    const trace = hexId(5, 16);
    const ids = Array.from({ length: 10 }, (_, i) => hexId(200 + i, 8));
    const attributes = Object.fromEntries(Array.from({ length: 20 }, (_, a) => [`attr.${a}`, "y".repeat(1500)]));
    store.writeTraces(
      traceRequest(
        "bulky",
        ids.map((spanId, i) => ({ traceId: trace, spanId, startNs: T0 + BigInt(i) * MS, attributes })),
      ),
    );
    const seen: string[] = [];
    let args: { span_ids: string[]; trace_id?: string; max_bytes?: number } = {
      span_ids: ids,
      trace_id: trace,
      max_bytes: 4096,
    };
    for (let calls = 0; calls < 20; calls++) {
      const { structured } = await callTool(getSpanDetails, args, query.api);
      expect(structured.spans.length, "progress").to.be.greaterThan(0);
      for (const span of structured.spans) expect(span.attributes["attr.0"]).to.match(/…\[\+\d+ chars\]$/);
      seen.push(...structured.spans.map((s) => s.span_id));
      if (!structured.truncated) break;
      args = structured.continuation?.arguments as typeof args;
      expect(args).to.include({ trace_id: trace, max_bytes: 4096 });
    }
    expect(seen).to.deep.equal(ids);
  });
});
