import { expect } from "chai";
import { nextPageCommand, pageLine } from "../../../client/render/page-hint.js";

describe("paging hint", () => {
  it("is the same command with the new cursor in place of the old one, quoted for the shell", () => {
    expect(nextPageCommand(["traces", "--service", "x", "--cursor", "OLD", "--limit", "5"], "NEW")).to.equal(
      "obs traces --service x --limit 5 --cursor NEW",
    );
    expect(nextPageCommand(["logs", "--cursor=OLD", "--contains", "it's down", "attr.k=a b"], "NEW")).to.equal(
      `obs logs --contains 'it'\\''s down' 'attr.k=a b' --cursor NEW`,
    );
  });

  it("puts the cursor before --, where it is still an option", () => {
    expect(nextPageCommand(["traces", "--limit", "1", "--", "attr.http.route=/cart"], "NEW")).to.equal(
      "obs traces --limit 1 --cursor NEW -- attr.http.route=/cart",
    );
    expect(nextPageCommand(["traces", "--cursor", "OLD", "--"], "NEW")).to.equal("obs traces --cursor NEW --");
  });

  it("says only how many were shown when there is no more", () => {
    const meta = { limit: 1, lookback: "15m", returned: 1, truncated: false, nextCursor: null };
    expect(pageLine(meta, ["traces"])).to.equal("1 shown");
    expect(pageLine({ ...meta, truncated: true, nextCursor: "C" }, ["traces", "--service", "x"])).to.equal(
      "1 shown; next page: obs traces --service x --cursor C",
    );
  });
});
