import { expect } from "chai";
import { GroupExemplars } from "../../../daemon/query/metrics/group-exemplars.js";
import { addRareExemplars, addRowExemplars, rareParts } from "../../../daemon/query/metrics/slot-exemplars.js";

describe("slot rows' exemplars", () => {
  it("gives a row's trace ids to its group at the row's time, in the row's order, and leaves rows out of scope out", () => {
    const exemplars = new GroupExemplars();
    addRowExemplars(exemplars, 0, 5, 100n, '["a","b"]');
    addRareExemplars(exemplars, 1, 6, '300 ["c"]');
    addRareExemplars(exemplars, null, 7, '400 ["x"]');
    expect(exemplars.of(0)).to.deep.equal([
      { traceId: "a", timeNs: 100n },
      { traceId: "b", timeNs: 100n },
    ]);
    expect(exemplars.of(1)).to.deep.equal([{ traceId: "c", timeNs: 300n }]);
    expect(exemplars.of(2)).to.deep.equal([]);
  });

  it("reads a row's resets, and its exemplars only when it has some", () => {
    expect(rareParts('2 1700000000000000001 ["a"]')).to.deep.equal({
      resets: 2,
      exemplar: '1700000000000000001 ["a"]',
    });
    expect(rareParts("1 1700000000000000001 ")).to.deep.equal({ resets: 1, exemplar: null });
    expect(rareParts('0 5 ["b"]')).to.deep.equal({ resets: 0, exemplar: '5 ["b"]' });
  });
});
