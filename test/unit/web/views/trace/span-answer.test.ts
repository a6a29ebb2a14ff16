import { expect } from "chai";
import { spanAnswer } from "../../../../../client/web/views/trace/span-answer.js";

describe("the span detail's reading of a getSpan answer", () => {
  const span = { spanId: "00f067aa0ba902b7", traceId: "4bf92f3577b34da6a3ce929d0e0e4736", name: "charge" };

  it("shows the span when it belongs to the route's trace (ids compared without case)", () => {
    expect(spanAnswer(span, span.spanId, span.traceId)).to.deep.equal({ kind: "span", span });
    expect(spanAnswer(span, span.spanId, span.traceId.toUpperCase()).kind).to.equal("span");
  });

  it("names the other trace when the span id belongs to a different one", () => {
    expect(spanAnswer(span, span.spanId, "11111111111111111111111111111111")).to.deep.equal({
      kind: "otherTrace",
      traceId: span.traceId,
      spanId: span.spanId,
      heldHere: false,
    });
    const both = spanAnswer(span, span.spanId, "11111111111111111111111111111111", true);
    expect(both).to.include({ kind: "otherTrace", heldHere: true });
  });

  it("waits while there is no answer or only the previous selection's", () => {
    expect(spanAnswer(undefined, span.spanId, span.traceId).kind).to.equal("loading");
    expect(spanAnswer(span, "aaaaaaaaaaaaaaaa", span.traceId).kind).to.equal("loading");
  });
});
