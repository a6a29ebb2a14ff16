import { expect } from "chai";
import { facetsLine } from "../../../../client/cli/facets-command.js";

describe("obs facets: the line under the table", () => {
  const meta = { limit: 2, lookback: "15m", returned: 2, truncated: false, nextCursor: null };

  it("says how many values are shown, as every other list does", () => {
    expect(facetsLine(meta)).to.equal("2 shown");
  });

  it("says when --limit cut the list, and how to see the rest", () => {
    expect(facetsLine({ ...meta, truncated: true })).to.equal("2 shown; more values: raise --limit (at most 500)");
    expect(facetsLine({ ...meta, limit: 500, returned: 500, truncated: true })).to.equal(
      "500 shown, the most one answer holds; narrow with --service or --since for the rest",
    );
  });
});
