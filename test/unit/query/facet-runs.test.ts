import { expect } from "chai";
import { excludedRuns } from "../../../daemon/query/sqlite-facets.js";

describe("facet id runs", () => {
  it("names the ids between the window's first and last row that are not the window's", () => {
    expect(excludedRuns(10, 20, [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 4)).to.deep.equal([]);
    expect(excludedRuns(10, 20, [10, 13, 14, 20], 4)).to.deep.equal([
      [11, 12],
      [15, 19],
    ]);
  });

  it("gives up past the most runs it may count", () => {
    expect(excludedRuns(1, 9, [1, 3, 5, 7, 9], 3)).to.equal(null);
    expect(excludedRuns(1, 9, [1, 3, 5, 7, 9], 4)).to.have.length(4);
  });
});
