import { expect } from "chai";
import { HeldSeries } from "../../../daemon/store/metric-held-series.js";

describe("the series a metric writer holds, by minute", () => {
  it("holds each series once, in the minute of its newest point, and lists every one held", () => {
    const held = new HeldSeries<string>();
    held.hold(1, 100, "a");
    held.hold(2, 101, "b");
    held.hold(1, 102, "a'");
    expect(held.size).to.equal(2);
    expect(held.minuteOf(1)).to.equal(102);
    expect(held.oldestMinute()).to.equal(101);
    expect([...held.entries()]).to.deep.equal([
      [1, "a'"],
      [2, "b"],
    ]);
    // Each listing starts over from the first.
    expect([...held.entries()]).to.have.length(2);
  });

  it("lets go of the series held before a minute, of one series, or of all", () => {
    const held = new HeldSeries<string>();
    for (const [id, minute] of [
      [1, 100],
      [2, 100],
      [3, 101],
      [4, 102],
    ] as const) {
      held.hold(id, minute, `s${id}`);
    }
    expect(held.releaseBefore(102).sort()).to.deep.equal(["s1", "s2", "s3"]);
    expect(held.oldestMinute()).to.equal(102);
    expect(held.release(4)).to.equal("s4");
    expect(held.release(4)).to.equal(undefined);
    expect(held.oldestMinute()).to.equal(undefined);
    held.hold(5, 103, "s5");
    expect(held.releaseAll()).to.deep.equal([[5, "s5"]]);
    expect([...held.entries()]).to.deep.equal([]);
  });
});
