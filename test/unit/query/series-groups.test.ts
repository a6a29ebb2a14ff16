import { expect } from "chai";
import { SeriesGroups } from "../../../daemon/query/metrics/metric-sql-functions.js";

describe("SeriesGroups", () => {
  const lookups = (groups: SeriesGroups, ids: number[]) => ids.map((id) => groups.of(id));

  it("answers each series' group, and null outside the scope, for close ids", () => {
    const groups = new SeriesGroups();
    groups.set(
      new Map([
        [10, 0],
        [12, 1],
        [13, 0],
      ]),
    );
    expect(lookups(groups, [10, 11, 12, 13, 9, 14, 0])).to.deep.equal([0, null, 1, 0, null, null, null]);
  });

  it("answers the same for ids too far apart for an array", () => {
    const groups = new SeriesGroups();
    groups.set(
      new Map([
        [5, 2],
        [5 + (1 << 21), 3],
      ]),
    );
    expect(lookups(groups, [5, 6, 5 + (1 << 21), 4])).to.deep.equal([2, null, 3, null]);
  });

  it("answers null for every series once emptied", () => {
    const groups = new SeriesGroups();
    groups.set(new Map([[1, 0]]));
    groups.set(new Map());
    expect(groups.of(1)).to.equal(null);
  });
});
