import { expect } from "chai";
import { freshKeys } from "../../../../../client/web/views/logs/fresh-rows.js";
import {
  attrChange,
  containsChange,
  containsOf,
  filterChips,
  hasFilters,
  logRequestOf,
} from "../../../../../client/web/views/logs/log-filters.js";

const q = (text: string) => new URLSearchParams(text);

describe("web logs: filters in the query string", () => {
  it("asks the log search with the URL's parameters under the route's names", () => {
    const request = logRequestOf(
      q(
        "service=web&severity=error&contains=card&traceId=ab&spanId=cd&attr.user.id=7&attrContains.path=/x&lookback=5m",
      ),
      "5m",
    );
    expect(request).to.deep.equal({
      lookback: "5m",
      service: "web",
      severity: "error",
      traceId: "ab",
      spanId: "cd",
      contains: "card",
      attr: [["user.id", "7"]],
      attrContains: [["path", "/x"]],
    });
  });

  it("leaves out empty parameters, and reads body (contains' alias) from a link", () => {
    expect(logRequestOf(q("service=&severity="), "1h")).to.deep.equal({ lookback: "1h" });
    expect(logRequestOf(q("body=declined"), "1h")).to.deep.equal({ lookback: "1h", contains: "declined" });
    expect(containsOf(q("body=declined"))).to.equal("declined");
    expect(containsOf(q("body=a&contains=b"))).to.equal("b");
  });

  it("sets the text filter as contains and drops body", () => {
    expect(containsChange(" card ")).to.deep.equal({ contains: "card", body: null });
    expect(containsChange("")).to.deep.equal({ contains: null, body: null });
  });

  it("turns key=value into attr.KEY and key~text into attrContains.KEY", () => {
    expect(attrChange("user.id=u-42")).to.deep.equal({ "attr.user.id": "u-42" });
    expect(attrChange(" http.route = /a=b ")).to.deep.equal({ "attr.http.route": "/a=b" });
    expect(attrChange("db.statement~SELECT")).to.deep.equal({ "attrContains.db.statement": "SELECT" });
    expect(attrChange("q=a~b")).to.deep.equal({ "attr.q": "a~b" });
    expect(attrChange("novalue")).to.equal(null);
    expect(attrChange("=x")).to.equal(null);
    expect(attrChange("k~")).to.equal(null);
  });

  it("shows attribute and span filters as chips naming their parameter", () => {
    expect(filterChips(q("attr.a=1&attrContains.b=2&spanId=ff&service=web"))).to.deep.equal([
      { param: "attr.a", label: "a=1" },
      { param: "attrContains.b", label: "b~2" },
      { param: "spanId", label: "span ff" },
    ]);
  });

  it("knows whether anything besides the window filters", () => {
    expect(hasFilters(q("lookback=5m"))).to.equal(false);
    expect(hasFilters(q("lookback=5m&attr.a=1"))).to.equal(true);
  });
});

describe("web logs: fresh rows of a live tail", () => {
  it("marks nothing on the first answer, then the keys not seen before", () => {
    expect([...freshKeys(undefined, ["a", "b"])]).to.deep.equal([]);
    expect([...freshKeys(new Set(["a", "b"]), ["c", "a", "b"])]).to.deep.equal(["c"]);
  });
});
