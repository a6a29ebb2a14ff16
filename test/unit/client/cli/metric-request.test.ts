import { expect } from "chai";
import { describeMetricRequest, groupByValues, metricSeriesRequest } from "../../../../client/cli/metric-request.js";
import { LifecycleError } from "../../../../client/lifecycle/lifecycle-error.js";

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(LifecycleError);
    expect((error as LifecycleError).code).to.equal("invalid_argument");
    return (error as LifecycleError).message;
  }
  throw new Error("not refused");
}

describe("obs metric arguments", () => {
  it("makes the series request from the name, the filters and the route's flags, group-by in order", () => {
    expect(
      metricSeriesRequest({
        name: "gen_ai.client.token.usage",
        since: "1h",
        groupBy: ["attr.gen_ai.token.type", "service"],
        agg: "sum",
        step: "5m",
        service: "agent",
        type: "histogram",
        limit: 3,
        filters: ["attr.model=m1", "attr.a=b=c"],
      }),
    ).to.deep.equal({
      attr: [
        ["model", "m1"],
        ["a", "b=c"],
      ],
      groupBy: ["attr.gen_ai.token.type", "service"],
      agg: "sum",
      step: "5m",
      service: "agent",
      type: "histogram",
      lookback: "1h",
      limit: 3,
      name: "gen_ai.client.token.usage",
    });
  });

  it("leaves groupBy out when no --group-by is given (one group)", () => {
    expect(metricSeriesRequest({ name: "m", since: "15m", filters: [] })).to.deep.equal({ name: "m", lookback: "15m" });
    expect(groupByValues(undefined)).to.deep.equal([]);
    expect(groupByValues("service")).to.deep.equal(["service"]);
  });

  it("takes --group-by items comma-separated in any order, and a key holding a comma whole", () => {
    expect(groupByValues("service,attr.z")).to.deep.equal(["service", "attr.z"]);
    expect(groupByValues(["attr.z,service"])).to.deep.equal(["attr.z", "service"]);
    expect(groupByValues(["attr.a,b", "service"])).to.deep.equal(["attr.a,b", "service"]);
  });

  it("refuses a bad --group-by, --since or --limit, and substring filters, before any request", () => {
    expect(refusal(() => metricSeriesRequest({ name: "m", since: "15m", groupBy: ["operation"] }))).to.equal(
      '--group-by "operation": use service or attr.KEY',
    );
    expect(refusal(() => metricSeriesRequest({ name: "m", since: "15m", groupBy: ["attr."] }))).to.include("attr.KEY");
    expect(refusal(() => metricSeriesRequest({ name: "m", since: "2d" }))).to.include("--since");
    expect(refusal(() => metricSeriesRequest({ name: "m", since: "15m", limit: 0 }))).to.include("--limit");
    expect(refusal(() => metricSeriesRequest({ name: "m", since: "15m", filters: ["attrContains.k=v"] }))).to.equal(
      "obs metric takes exact filters only: attr.KEY=VALUE",
    );
    expect(refusal(() => metricSeriesRequest({ name: "", since: "15m" }))).to.include("obs metrics lists them");
  });

  it("makes the describe request from the name, --type, --service and --since only", () => {
    expect(describeMetricRequest({ name: "m", since: "2h", service: "api", filters: [] })).to.deep.equal({
      name: "m",
      lookback: "2h",
      service: "api",
    });
    expect(describeMetricRequest({ name: "m", since: "2h", type: "gauge" })).to.deep.equal({
      name: "m",
      lookback: "2h",
      type: "gauge",
    });
    expect(describeMetricRequest({ name: "m", since: "15m" })).to.deep.equal({ name: "m", lookback: "15m" });
    expect(
      refusal(() =>
        describeMetricRequest({ name: "m", since: "15m", groupBy: ["service"], step: "1m", filters: ["attr.k=v"] }),
      ),
    ).to.equal("--describe takes only --type, --service and --since, not --group-by, --step, attr.KEY=VALUE");
  });
});
