import { expect } from "chai";
import {
  describeSearch,
  formOf,
  queryChangesOf,
  tracesRequestOf,
  withAttr,
  withoutAttr,
} from "../../../../../client/web/views/traces/trace-search.js";

describe("the traces view's search between form, URL and request", () => {
  it("reads the form from the query string under the API's names", () => {
    const query = new URLSearchParams(
      "service=web&status=error&operation=GET+%2Fcheckout&durationMin=150&attr.http.route=%2Forders&lookback=15m",
    );
    expect(formOf(query)).to.deep.equal({
      service: "web",
      status: "error",
      operation: "GET /checkout",
      durationMin: "150",
      attrs: [["http.route", "/orders"]],
    });
    expect(formOf(new URLSearchParams())).to.deep.equal({
      service: "",
      status: "",
      operation: "",
      durationMin: "",
      attrs: [],
    });
  });

  it("writes the form back as query changes, removing emptied fields and dropped attribute filters", () => {
    const current = new URLSearchParams("service=web&attr.a=1&attr.b=2&lookback=15m&limit=5");
    const form = withoutAttr(withAttr(formOf(current), ["c", "3"]), "a");
    expect(queryChangesOf({ ...form, service: "", operation: " GET /x " }, current)).to.deep.equal({
      service: null,
      status: null,
      operation: "GET /x",
      durationMin: null,
      "attr.a": null,
      "attr.b": "2",
      "attr.c": "3",
    });
  });

  it("replaces an attribute filter on a key already filtered", () => {
    const form = withAttr(formOf(new URLSearchParams("attr.k=1")), ["k", "2"]);
    expect(form.attrs).to.deep.equal([["k", "2"]]);
  });

  it("builds the API request from the URL, keeping hand-typed values for the collector to judge", () => {
    expect(
      tracesRequestOf(new URLSearchParams("status=error&attr.http.route=/orders&limit=5&lookback=15m")),
    ).to.deep.equal({ lookback: "15m", status: "error", limit: "5", attr: [["http.route", "/orders"]] });
    expect(tracesRequestOf(new URLSearchParams("durationMin=abc"))).to.deep.equal({
      lookback: "1h",
      durationMin: "abc",
    });
    expect(tracesRequestOf(new URLSearchParams("service=&operation="))).to.deep.equal({ lookback: "1h" });
  });

  it("says in words what was searched", () => {
    expect(describeSearch(new URLSearchParams())).to.equal("any trace");
    expect(describeSearch(new URLSearchParams("service=web&status=error&durationMin=100&attr.k=v"))).to.equal(
      "service web, status error, at least 100 ms, k=v",
    );
  });
});
