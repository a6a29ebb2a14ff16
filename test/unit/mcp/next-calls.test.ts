import { expect } from "chai";
import { continuationCall, traceLogsCall, traceSpansSearchCall } from "../../../daemon/mcp/tools/next-calls.js";
import { spanDetailsCall, traceOutlineCall } from "../../../daemon/mcp/tools/query-args.js";

describe("next-call builders", () => {
  it("carries max_bytes into a continuation only when the caller set it", () => {
    expect(
      continuationCall("get_trace_outline", { trace_id: "t", offset: 5 }, undefined, "rest").arguments,
    ).to.deep.equal({ trace_id: "t", offset: 5 });
    expect(continuationCall("get_trace_outline", { trace_id: "t", offset: 5 }, 2048, "rest").arguments).to.deep.equal({
      trace_id: "t",
      offset: 5,
      max_bytes: 2048,
    });
  });

  it("asks the search tools over a trace with their widest window, since a trace may be older than the default", () => {
    expect(traceLogsCall("t", "why").arguments).to.deep.equal({ trace_id: "t", lookback: "24h" });
    expect(traceLogsCall("t", "why", "s").arguments).to.deep.equal({ trace_id: "t", span_id: "s", lookback: "24h" });
    expect(traceSpansSearchCall("t", "why").arguments).to.deep.equal({ trace_id: "t", lookback: "24h" });
  });

  it("is what query-args exports to the query tools", () => {
    expect(traceOutlineCall("t", "why")).to.deep.equal({
      tool: "get_trace_outline",
      arguments: { trace_id: "t" },
      why: "why",
    });
    expect(spanDetailsCall("t", ["s"], "why").arguments).to.deep.equal({ span_ids: ["s"], trace_id: "t" });
  });
});
