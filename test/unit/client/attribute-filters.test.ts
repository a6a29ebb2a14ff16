import { expect } from "chai";
import { attributeRequest } from "../../../client/cli/query-support.js";

describe("attribute filters given as arguments", () => {
  it("splits exact and substring filters, each in the order given, a value keeping its = signs", () => {
    expect(
      attributeRequest(["attr.http.route=/x", "attrContains.msg=a=b", "attr.k=", "attrContains.m=n"]),
    ).to.deep.equal({
      attr: [
        ["http.route", "/x"],
        ["k", ""],
      ],
      attrContains: [
        ["msg", "a=b"],
        ["m", "n"],
      ],
    });
  });

  it("sets no filter field when none is given", () => {
    expect(attributeRequest(undefined)).to.deep.equal({});
    expect(attributeRequest([])).to.deep.equal({});
  });

  it("refuses a word that is no filter, as a usage error", () => {
    expect(() => attributeRequest(["service=api"])).to.throw('unexpected argument "service=api"');
  });
});
