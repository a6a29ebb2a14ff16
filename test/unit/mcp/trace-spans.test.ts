import { expect } from "chai";
import { fetchTraceSpans } from "../../../daemon/mcp/tools/trace-spans.js";
import type { SpanRecord } from "../../../shared/api-records.js";
import type { QueryApi } from "../../../shared/query-api.js";
import type { TraceSpansRequest } from "../../../shared/query-messages.js";

/** A QueryApi whose getTraceSpans pages `count` spans at most `pageCap` a page (as the API caps limit), recording the limits asked. */
function pagedApi(count: number, pageCap: number): { api: QueryApi; limits: number[] } {
  const spans = Array.from({ length: count }, (_, i) => ({ spanId: String(i) }) as SpanRecord);
  const limits: number[] = [];
  const getTraceSpans = (req: TraceSpansRequest) => {
    limits.push(req.limit ?? pageCap);
    const from = req.cursor === undefined ? 0 : Number(req.cursor);
    const to = Math.min(count, from + Math.min(pageCap, req.limit ?? pageCap));
    const nextCursor = to < count ? String(to) : null;
    const meta = { limit: pageCap, lookback: null, returned: to - from, truncated: nextCursor !== null, nextCursor };
    return Promise.resolve({ data: spans.slice(from, to), meta });
  };
  return { api: { getTraceSpans } as unknown as QueryApi, limits };
}

describe("trace spans read up to a cap", () => {
  it("follows the cursors to the end of a trace within the cap", async () => {
    const { api } = pagedApi(25, 4);
    const { spans, overCap } = await fetchTraceSpans(api, "t", 30);
    expect(spans.map((span) => span.spanId)).to.deep.equal(Array.from({ length: 25 }, (_, i) => String(i)));
    expect(overCap).to.equal(false);
  });

  it("stops at the cap, asking no more than it keeps, and says the trace has more", async () => {
    const { api, limits } = pagedApi(25, 4);
    const { spans, overCap } = await fetchTraceSpans(api, "t", 10);
    expect(spans.map((span) => span.spanId)).to.deep.equal(Array.from({ length: 10 }, (_, i) => String(i)));
    expect(overCap).to.equal(true);
    // The last page asks only for the spans left under the cap.
    expect(limits.at(-1)).to.equal(2);
  });

  it("is not over the cap when the trace has exactly the cap's spans", async () => {
    const { api } = pagedApi(12, 4);
    const { spans, overCap } = await fetchTraceSpans(api, "t", 12);
    expect(spans).to.have.length(12);
    expect(overCap).to.equal(false);
  });
});
