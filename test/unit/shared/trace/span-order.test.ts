import { expect } from "chai";
import { type OrderableSpan, spanForest } from "../../../../shared/trace/span-order.js";

function span(spanId: string, parentSpanId: string | null, start: number): OrderableSpan {
  return { spanId, parentSpanId, startTimeUnixNano: String(start) };
}

/** [span id, depth, orphan] in the forest's order. */
function orderOf(spans: OrderableSpan[]): [string, number, boolean][] {
  return spanForest(spans).order.map((o) => [spans[o.index]?.spanId as string, o.depth, o.orphan]);
}

describe("trace span order", () => {
  it("lists roots depth-first with children by start time, whatever the input order, then orphans", () => {
    const spans = [
      span("late-child", "root", 30),
      span("orphan", "gone", 5),
      span("grandchild", "early-child", 12),
      span("root", null, 0),
      span("early-child", "root", 10),
    ];
    expect(orderOf(spans)).to.deep.equal([
      ["root", 0, false],
      ["early-child", 1, false],
      ["grandchild", 2, false],
      ["late-child", 1, false],
      ["orphan", 0, true],
    ]);
  });

  it("lists spans caught in a parent cycle, or naming themselves, once each, as orphans", () => {
    const spans = [span("a", "b", 1), span("b", "a", 2), span("self", "self", 3), span("root", null, 0)];
    expect(orderOf(spans)).to.deep.equal([
      ["root", 0, false],
      ["self", 0, true],
      ["a", 0, true],
      ["b", 1, false],
    ]);
  });
});
