import { expect } from "chai";
import {
  controlsOf,
  describeRequestOf,
  groupByOf,
  isCharted,
  listOnlyHref,
  listRequestOf,
  selectMetricHref,
  seriesRequestOf,
  toggleGroupBy,
  typeChoosing,
} from "../../../../../client/web/views/metrics/metric-query.js";
import type { MetricSummaryRecord } from "../../../../../shared/query-types.js";

const listed = (over: Partial<MetricSummaryRecord>): MetricSummaryRecord => ({
  name: "jobs",
  type: "sum",
  unit: "{job}",
  description: "",
  temporality: "cumulative",
  monotonic: true,
  services: ["worker"],
  seriesCount: 1,
  pointCount: 10,
  lastTime: "2026-11-30T12:00:00Z",
  ...over,
});

describe("web metrics: the address and the requests", () => {
  it("reads every control from the query string under the API's names", () => {
    const query = new URLSearchParams(
      "name=http.server.requests&groupBy=service&groupBy=attr.http.route&agg=increase&step=1m&lookback=6h&service=web&attr.http.route=/cart&match=http",
    );
    const controls = controlsOf(query);
    expect(controls).to.deep.equal({
      name: "http.server.requests",
      type: undefined,
      match: "http",
      service: "web",
      groupBy: ["service", "attr.http.route"],
      agg: "increase",
      step: "1m",
      lookback: "6h",
      attrs: [["http.route", "/cart"]],
    });
    expect(seriesRequestOf(controls, "http.server.requests")).to.deep.equal({
      name: "http.server.requests",
      lookback: "6h",
      groupBy: ["service", "attr.http.route"],
      agg: "increase",
      step: "1m",
      service: "web",
      attr: [["http.route", "/cart"]],
    });
    expect(listRequestOf(controls)).to.deep.equal({ lookback: "6h", service: "web", name: "http" });
    expect(describeRequestOf(controls, "x")).to.deep.equal({ name: "x", lookback: "6h", service: "web" });
  });

  it("leaves out what the address does not set, with the time range's default window", () => {
    const controls = controlsOf(new URLSearchParams("name=queue.depth"));
    expect(controls.lookback).to.equal("1h");
    expect(seriesRequestOf(controls, "queue.depth")).to.deep.equal({ name: "queue.depth", lookback: "1h" });
    expect(listRequestOf(controls)).to.deep.equal({ lookback: "1h" });
  });

  it("takes group keys repeated or comma-separated, once each", () => {
    expect(groupByOf(new URLSearchParams("groupBy=service,attr.a&groupBy=attr.a&groupBy= "))).to.deep.equal([
      "service",
      "attr.a",
    ]);
    expect(groupByOf(new URLSearchParams("groupBy=attr.a,b&groupBy=service"))).to.deep.equal(["attr.a,b", "service"]);
    expect(toggleGroupBy(["service", "attr.a"], "service")).to.deep.equal(["attr.a"]);
    expect(toggleGroupBy(["attr.a"], "service")).to.deep.equal(["attr.a", "service"]);
  });

  it("selecting another metric keeps the window, service, step and grouping by service, and drops the rest", () => {
    const query = new URLSearchParams(
      "name=a&agg=p95&groupBy=service&groupBy=attr.k&attr.k=v&lookback=15m&service=web&step=1m&match=h",
    );
    expect(selectMetricHref(query, "b c")).to.equal(
      "/ui/metrics?name=b+c&lookback=15m&service=web&step=1m&match=h&groupBy=service",
    );
    expect(listOnlyHref(query)).to.equal("/ui/metrics?lookback=15m&service=web&match=h");
  });

  it("opens each of a name's identities from its own row, by its type, and marks the one charted", () => {
    const counter = listed({ services: ["worker", "api"] });
    const gauge = listed({ type: "gauge", temporality: null, monotonic: null, services: ["api", "batch"] });
    const other = listed({ name: "queue" });
    const rows = [counter, gauge, other];
    // By name alone, the collector answers with the identity written to most recently.
    expect(typeChoosing(counter, rows)).to.equal("sum");
    expect(typeChoosing(gauge, rows)).to.equal("gauge");
    expect(typeChoosing(other, rows)).to.equal(undefined);
    expect(typeChoosing(counter, [counter, listed({ temporality: "delta" })])).to.equal(undefined);
    const query = new URLSearchParams("name=queue&type=sum&lookback=15m&service=api");
    expect(selectMetricHref(query, "jobs", "gauge")).to.equal(
      "/ui/metrics?name=jobs&type=gauge&lookback=15m&service=api",
    );
    expect(selectMetricHref(query, "other")).to.equal("/ui/metrics?name=other&lookback=15m&service=api");
    const controls = controlsOf(new URLSearchParams("name=jobs&type=gauge&lookback=15m"));
    expect(seriesRequestOf(controls, "jobs")).to.deep.equal({ name: "jobs", type: "gauge", lookback: "15m" });
    expect(describeRequestOf(controls, "jobs")).to.deep.equal({ name: "jobs", type: "gauge", lookback: "15m" });

    expect(isCharted(other, rows, "queue", undefined)).to.equal(true);
    expect(isCharted(counter, rows, "jobs", undefined)).to.equal(false);
    expect(isCharted(gauge, rows, "jobs", gauge)).to.equal(true);
    expect(isCharted(counter, rows, "jobs", gauge)).to.equal(false);
    expect(isCharted(other, rows, "jobs", gauge)).to.equal(false);
  });

  it("marks both rows of a name the collector reads as one, a cumulative counter and a delta one", () => {
    const cumulative = listed({ services: ["checkout"] });
    const delta = listed({ temporality: "delta", services: ["payments"] });
    const rows = [cumulative, delta];
    // The answer names the identity written to last: either row's, from one refresh to the next.
    for (const answered of [cumulative, delta]) {
      expect(isCharted(cumulative, rows, "jobs", answered)).to.equal(true);
      expect(isCharted(delta, rows, "jobs", answered)).to.equal(true);
    }
    // A cumulative up-down sum is a level, a delta one changes: read apart.
    const level = listed({ monotonic: false });
    const changes = listed({ monotonic: false, temporality: "delta" });
    expect(isCharted(changes, [level, changes], "jobs", level)).to.equal(false);
  });
});
