import { expect } from "chai";
import type { AnyMcpTool } from "../../../daemon/mcp/mcp-tool.js";
import { getCriticalPath } from "../../../daemon/mcp/tools/critical-path.js";
import { getSpanDetails } from "../../../daemon/mcp/tools/span-details.js";
import { getTraceErrors } from "../../../daemon/mcp/tools/trace-errors.js";
import { getTraceOutline } from "../../../daemon/mcp/tools/trace-outline.js";
import { searchTraces } from "../../../daemon/mcp/tools/traces.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const TRACES = [hexId(1, 16), hexId(2, 16)];
const CHILD = hexId(12, 8);

describe("MCP trace tools link their traces to the web UI", () => {
  let store: TestStore;
  let query: StoreApi;
  beforeEach(() => {
    store = testStore();
    store.writeTraces(
      traceRequest("shop", [
        { traceId: TRACES[0] as string, spanId: hexId(1, 8), name: "GET /a", startNs: NOW - 2000n * MS },
        { traceId: TRACES[1] as string, spanId: hexId(2, 8), name: "GET /b", startNs: NOW - 1000n * MS },
        {
          traceId: TRACES[1] as string,
          spanId: CHILD,
          parentSpanId: hexId(2, 8),
          name: "charge",
          startNs: NOW - 999n * MS,
          error: true,
        },
      ]),
    );
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  const waterfall = (traceId: string, spanId?: string) =>
    `${TOOL_BASE_URL}/ui/traces/${traceId}${spanId ? `?span=${spanId}` : ""}`;

  it("search_traces: each trace its waterfall", async () => {
    const { structured } = await callTool(searchTraces, { lookback: "1h" }, query.api);
    expect(structured.traces.map((trace) => trace.ui_url)).to.deep.equal([
      waterfall(TRACES[1] as string),
      waterfall(TRACES[0] as string),
    ]);
  });

  it("get_trace_outline, get_trace_errors and get_critical_path: the trace's waterfall", async () => {
    const trace_id = (TRACES[1] as string).toUpperCase();
    for (const tool of [getTraceOutline, getTraceErrors, getCriticalPath] as AnyMcpTool[]) {
      const { structured } = await callTool(tool, { trace_id }, query.api);
      expect(structured.ui_url, tool.name).to.equal(waterfall(TRACES[1] as string));
    }
  });

  it("get_span_details: the waterfall with the span selected", async () => {
    const { structured } = await callTool(getSpanDetails, { span_ids: [CHILD], trace_id: TRACES[1] }, query.api);
    expect(structured.spans.map((span) => span.ui_url)).to.deep.equal([waterfall(TRACES[1] as string, CHILD)]);
  });
});
