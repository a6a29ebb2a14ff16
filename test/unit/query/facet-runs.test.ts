import { expect } from "chai";
import { excludedIds } from "../../../daemon/query/sqlite-facets.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";

describe("facet ids left out", () => {
  it("names the ids between the window's first and last row that are not the window's", () => {
    expect(excludedIds(10, 20, [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 4)).to.deep.equal([]);
    expect(excludedIds(10, 20, [10, 13, 14, 20], 4)).to.deep.equal([11, 12, 15, 16, 17, 18, 19]);
  });

  it("gives up when those ids fall in more posting buckets than it may read", () => {
    const B = POSTING_BUCKET_ROWS;
    const inWindow = [1, 3, B + 1, B + 3, 2 * B + 1, 2 * B + 3];
    expect(excludedIds(1, 2 * B + 3, inWindow, 3)).to.have.length(2 * B + 3 - inWindow.length);
    expect(excludedIds(1, 2 * B + 3, inWindow, 2)).to.equal(null);
  });
});
