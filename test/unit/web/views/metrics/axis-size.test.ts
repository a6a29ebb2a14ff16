import { expect } from "chai";
import { VALUE_AXIS_MIN, valueAxisLabel, valueAxisSize } from "../../../../../client/web/views/metrics/axis-size.js";

/** A plot whose canvas measures 7 px a character, its value axis' font set. */
function plot(size?: number) {
  const ctx = { font: "", measureText: (text: string) => ({ width: 7 * text.length }) };
  return { axes: [{}, { font: ["12px sans-serif", 12], _size: size }], ctx } as unknown as Parameters<
    typeof valueAxisSize
  >[0];
}

describe("web metrics: the value axis' width", () => {
  it("takes the longest tick label's width and room for the tick, at least VALUE_AXIS_MIN", () => {
    // "2.469155M": 9 characters, 63 px, where a fixed 56 px cut its first digits.
    expect(valueAxisSize(plot(), ["2.469135M", "2.469155M", "2.46914M"], 1, 0)).to.equal(63 + 18);
    expect(valueAxisSize(plot(), ["1", "2"], 1, 0)).to.equal(VALUE_AXIS_MIN);
    expect(valueAxisSize(plot(), null, 1, 0)).to.equal(VALUE_AXIS_MIN);
  });

  it("keeps the size it has once the ticks have had two cycles to settle", () => {
    expect(valueAxisSize(plot(90), ["2.469155M"], 1, 2)).to.equal(90);
  });
});

describe("web metrics: the value axis' label", () => {
  /** A plot area `height` device px high whose canvas measures 7 px a character. */
  const area = (height: number) =>
    ({ bbox: { height }, ctx: { measureText: (text: string) => ({ width: 7 * [...text].length }) } }) as Parameters<
      ReturnType<typeof valueAxisLabel>
    >[0];

  it("is the unit where it fits along the plot", () => {
    expect(valueAxisLabel("ms")(area(100))).to.equal("ms");
    expect(valueAxisLabel("{request}")(area(63))).to.equal("{request}");
  });

  it("is cut with an ellipsis where the unit is longer than the plot is high", () => {
    const unit = "{kubernetes.container.restarts_per_pod}";
    expect(valueAxisLabel(unit)(area(100))).to.equal("{kubernetes.c…");
    expect(valueAxisLabel(unit)(area(3))).to.equal("");
  });
});
