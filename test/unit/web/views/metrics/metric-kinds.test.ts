import { expect } from "chai";
import {
  aggLabel,
  aggPhrase,
  allowedAggs,
  defaultAgg,
  typeLabel,
} from "../../../../../client/web/views/metrics/metric-kinds.js";
import { METRIC_AGGS } from "../../../../../shared/metric-routes.js";

describe("web metrics: what a metric type allows", () => {
  it("offers a counter rate, increase and sum, rate first by default", () => {
    const counter = { type: "sum", monotonic: true, temporality: "cumulative" } as const;
    expect(allowedAggs(counter)).to.deep.equal(["rate", "increase", "sum"]);
    expect(defaultAgg(counter)).to.equal("rate");
    expect(typeLabel(counter)).to.equal("counter");
  });

  it("reads a cumulative up-down sum as a level, like a gauge, and a delta one's changes as a counter's", () => {
    const upDown = { type: "sum", monotonic: false, temporality: "cumulative" } as const;
    expect(allowedAggs(upDown)).to.deep.equal(METRIC_AGGS.gauge);
    expect(defaultAgg(upDown)).to.equal("last");
    expect(typeLabel(upDown)).to.equal("up-down sum");
    expect(defaultAgg({ type: "gauge", monotonic: null, temporality: null })).to.equal("last");
    const deltaUpDown = { ...upDown, temporality: "delta" } as const;
    expect(allowedAggs(deltaUpDown)).to.deep.equal(METRIC_AGGS.sum);
    expect(defaultAgg(deltaUpDown)).to.equal("rate");
  });

  it("offers histograms and summaries counts and quantiles, p95 by default", () => {
    for (const type of ["histogram", "exponential_histogram", "summary"] as const) {
      expect(allowedAggs({ type, monotonic: null, temporality: null })).to.include.members([
        "count",
        "p50",
        "p95",
        "p99",
      ]);
      expect(defaultAgg({ type, monotonic: null, temporality: null })).to.equal("p95");
    }
    expect(typeLabel({ type: "exponential_histogram", monotonic: null, temporality: null })).to.equal(
      "exponential histogram",
    );
  });

  it("names a counter's aggregations as rate per second and delta per bucket", () => {
    expect(aggLabel("rate")).to.equal("rate (per second)");
    expect(aggLabel("increase")).to.equal("increase (delta per bucket)");
    expect(aggPhrase("rate", "1m")).to.equal("rate per second");
    expect(aggPhrase("increase", "1m")).to.equal("increase per 1m");
    expect(aggPhrase("p95", "1m")).to.equal("p95");
  });
});
