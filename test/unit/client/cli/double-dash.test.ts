import { expect } from "chai";
import { positionalsAfterDoubleDash } from "../../../../client/cli/double-dash.js";

describe("words after --", () => {
  it("leaves a command line without -- as it is", () => {
    expect(positionalsAfterDoubleDash(["traces", "--limit", "1"])).to.deep.equal(["traces", "--limit", "1"]);
  });

  it("makes them positionals, as if typed without --", () => {
    expect(positionalsAfterDoubleDash(["traces", "--", "attr.http.route=/cart"])).to.deep.equal([
      "traces",
      "attr.http.route=/cart",
    ]);
    expect(positionalsAfterDoubleDash(["services", "--limit", "1", "--", "extra"])).to.deep.equal([
      "services",
      "--limit",
      "1",
      "extra",
    ]);
    expect(positionalsAfterDoubleDash(["traces", "--"])).to.deep.equal(["traces"]);
  });

  it("puts them before the options that end the words before --, so no flag takes one as its value", () => {
    expect(positionalsAfterDoubleDash(["traces", "--service", "--", "attr.a=b"])).to.deep.equal([
      "traces",
      "attr.a=b",
      "--service",
    ]);
    expect(positionalsAfterDoubleDash(["trace-stats", "service", "--json", "--", "count"])).to.deep.equal([
      "trace-stats",
      "service",
      "count",
      "--json",
    ]);
  });

  it("refuses a word after -- that would read as an option", () => {
    expect(() => positionalsAfterDoubleDash(["traces", "--", "--cursor", "X"])).to.throw(/^--cursor after --/);
    expect(positionalsAfterDoubleDash(["logs", "--", "-"])).to.deep.equal(["logs", "-"]);
  });
});
