import { expect } from "chai";
import { QueryService } from "../../../daemon/query/query-service.js";
import type { MetricBucketQuery, MetricIdentity, MetricListQuery } from "../../../daemon/query/telemetry-reader.js";
import { QueryError, type QueryErrorCode } from "../../../shared/query-error.js";
import { parseQueryRequest } from "../../../shared/query-request.js";
import type { MetricSummaryRecord } from "../../../shared/query-types.js";
import { FakeReader } from "./fake-reader.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const KEY = Buffer.alloc(32, 7);

const COUNTER: MetricIdentity = {
  id: 1,
  name: "tokens",
  type: "sum",
  unit: "{token}",
  description: "",
  temporality: 2,
  monotonic: true,
  metadata: null,
};

function summary(name: string): MetricSummaryRecord {
  return {
    name,
    type: "gauge",
    unit: "",
    description: "",
    temporality: null,
    monotonic: null,
    services: ["api"],
    seriesCount: 1,
    pointCount: 1,
    lastTime: "2027-01-15T08:00:00.000000000Z",
  };
}

function setup() {
  const reader = new FakeReader();
  reader.identities = [COUNTER];
  const service = new QueryService({ reader, now: () => NOW, cursorKey: KEY });
  return { reader, service };
}

function refusal(run: () => unknown, code: QueryErrorCode): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(QueryError);
    expect((error as QueryError).code).to.equal(code);
    return (error as Error).message;
  }
  throw new Error("expected a QueryError");
}

describe("QueryService metric queries (over a fake reader)", () => {
  it("answers 404 for an unknown metric name", () => {
    const { service } = setup();
    expect(refusal(() => service.metricSeries({ name: "nope" }), "not_found")).to.equal(
      'no metric "nope" in the store',
    );
    expect(refusal(() => service.describeMetric({ name: "nope" }), "not_found")).to.equal(
      'no metric "nope" in the store',
    );
  });

  it("answers with the identity of the type asked for, where a name has several", () => {
    const { reader, service } = setup();
    const gauge: MetricIdentity = { ...COUNTER, id: 2, type: "gauge", temporality: 0, monotonic: false };
    // The reader lists the newest first: without a type, the counter answers.
    reader.identities = [COUNTER, gauge];
    expect(service.metricSeries({ name: "tokens" }).data).to.include({ type: "sum", agg: "rate" });
    expect(service.metricSeries({ name: "tokens", type: "gauge" }).data).to.include({ type: "gauge", agg: "last" });
    expect((reader.last("metricBuckets")[0] as MetricBucketQuery).metric.id).to.equal(2);
    expect(refusal(() => service.metricSeries({ name: "tokens", type: "histogram" }), "not_found")).to.equal(
      'no histogram metric "tokens" in the store (its types: sum, gauge)',
    );
    expect(refusal(() => service.describeMetric({ name: "tokens", type: "summary" }), "not_found")).to.equal(
      'no summary metric "tokens" in the store (its types: sum, gauge)',
    );
    // From the address, as the HTTP route and the web UI send it.
    const parsed = parseQueryRequest("metricSeries", {}, { name: "tokens", type: "gauge" });
    expect(service.metricSeries(parsed).data.type).to.equal("gauge");
    expect(() => parseQueryRequest("metricSeries", {}, { name: "tokens", type: "counter" })).to.throw(/type/);
  });

  it("refuses an agg the metric's type does not take, naming the ones it does", () => {
    const { service } = setup();
    expect(refusal(() => service.metricSeries({ name: "tokens", agg: "p95" }), "invalid_argument")).to.equal(
      "agg p95 does not apply to tokens (a sum): use one of rate, increase, sum",
    );
    // The article goes with the type's name.
    const { reader, service: other } = setup();
    reader.identities = [
      { ...COUNTER, name: "sizes", type: "exponential_histogram", temporality: 1, monotonic: false },
    ];
    expect(refusal(() => other.metricSeries({ name: "sizes", agg: "rate" }), "invalid_argument")).to.match(
      /^agg rate does not apply to sizes \(an exponential_histogram\): /,
    );
  });

  it("refuses a step below a second, above the window, or read from raw points over more than an hour", () => {
    const { service } = setup();
    expect(refusal(() => service.metricSeries({ name: "tokens", step: 500 }), "invalid_argument")).to.equal(
      "invalid step 500ms: at least 1s",
    );
    expect(
      refusal(() => service.metricSeries({ name: "tokens", step: 3_600_000, lookback: 900_000 }), "invalid_argument"),
    ).to.equal("invalid step 1h: at most the window (15m)");
    expect(
      refusal(() => service.metricSeries({ name: "tokens", step: 90_000, lookback: 7_200_000 }), "invalid_argument"),
    ).to.equal("invalid step 90s: over a window longer than 1h, use a multiple of 1m (read from the rollups)");
    // Without a step, a window under a second is refused as the window it is.
    expect(refusal(() => service.metricSeries({ name: "tokens", lookback: 500 }), "invalid_argument")).to.equal(
      "invalid lookback 500ms: at least 1s (a bucket is at least 1s)",
    );
  });

  it("defaults the agg by type and the step by window, reading rollups for a day and points for 15 minutes", () => {
    const { reader, service } = setup();
    const day = service.metricSeries({ name: "tokens", lookback: 86_400_000 });
    const asked = reader.last("metricBuckets")[0] as MetricBucketQuery;
    expect(asked).to.deep.include({ agg: "rate", stepMs: 900_000, source: { kind: "rollups", widthS: 900 } });
    expect(asked.toNs - asked.fromNs).to.equal(86_400_000n * MS);
    expect(day.data).to.deep.include({ agg: "rate", step: "15m", valueUnit: "{token}/s" });
    expect(day.data.buckets).to.have.length(97);
    service.metricSeries({ name: "tokens" });
    expect(reader.last("metricBuckets")[0]).to.deep.include({ stepMs: 10_000, source: { kind: "points" } });
  });

  it("reads with a name's identity those of another temporality only: not another monotonicity or unit", () => {
    const { reader, service } = setup();
    const delta: MetricIdentity = { ...COUNTER, id: 2, temporality: 1 };
    const upDownDelta: MetricIdentity = { ...COUNTER, id: 3, temporality: 1, monotonic: false };
    const otherUnit: MetricIdentity = { ...COUNTER, id: 4, unit: "{call}" };
    reader.identities = [COUNTER, upDownDelta, otherUnit, delta];
    service.metricSeries({ name: "tokens" });
    expect((reader.last("metricBuckets")[0] as MetricBucketQuery).alsoIds).to.deep.equal([2]);
    // The delta up-down sum, chosen, reads alone: a cumulative counter's drops are resets, its are not.
    reader.identities = [upDownDelta, COUNTER, delta];
    service.metricSeries({ name: "tokens" });
    expect((reader.last("metricBuckets")[0] as MetricBucketQuery).alsoIds).to.equal(undefined);
  });

  it("answers last's latest from its newest bucket: none there is none now, not an older bucket's", () => {
    const { reader, service } = setup();
    reader.identities = [{ ...COUNTER, type: "gauge", temporality: 0, monotonic: false }];
    reader.bucketGroups = [{ key: [], values: [1, null], series: 1, resets: 0, exemplars: [] }];
    const answer = service.metricSeries({ name: "tokens", step: 450_000 });
    expect(answer.data.groups[0]?.latest).to.equal(null);
    expect(answer.data.groups[0]?.values).to.deep.equal([1, null]);
  });

  it("keeps the groups with the largest latest values up to the limit, and says when it cut", () => {
    const { reader, service } = setup();
    reader.bucketGroups = [1, 5, 3].map((v, i) => ({
      key: [`s${i}`, null],
      values: [null, v],
      series: 1,
      resets: i,
      exemplars: [],
    }));
    const answer = service.metricSeries({
      name: "tokens",
      groupBy: ["service", { attr: "k" }],
      limit: 2,
      lookback: 60_000,
      step: 30_000,
    });
    expect(answer.data.groups.map((g) => g.group)).to.deep.equal([
      { service: "s1", "attr.k": null },
      { service: "s2", "attr.k": null },
    ]);
    expect(answer.data.groups.map((g) => [g.latest, g.resets])).to.deep.equal([
      [5, 1],
      [3, 2],
    ]);
    expect(answer.meta).to.deep.include({ limit: 2, returned: 2, truncated: true });
  });

  it("keeps the groups with the largest totals where the values add up: the newest bucket is still filling", () => {
    const { reader, service } = setup();
    // s0 served 40 a bucket and is 3 s into the open one; s1 served 10 a bucket and sent its
    // open bucket's first export already.
    reader.bucketGroups = [
      { key: ["s0"], values: [40, 40, 8], series: 1, resets: 0, exemplars: [] },
      { key: ["s1"], values: [10, 10, 12], series: 1, resets: 0, exemplars: [] },
    ];
    const ask = (agg: "increase" | "rate", limit: number) =>
      service.metricSeries({ name: "tokens", groupBy: ["service"], agg, limit, lookback: 30_000, step: 10_000 });
    expect(ask("increase", 1).data.groups.map((g) => [g.group.service, g.latest])).to.deep.equal([["s0", 8]]);
    // A rate's newest bucket is the rate now: by it still.
    expect(ask("rate", 1).data.groups.map((g) => g.group.service)).to.deep.equal(["s1"]);
  });

  it("pages metrics by name with a cursor bound to the filters", () => {
    const { reader, service } = setup();
    reader.metricList = ["a", "b", "c"].map(summary);
    const first = service.listMetrics({ limit: 2, service: "api" });
    expect(first.data.map((m) => m.name)).to.deep.equal(["a", "b"]);
    expect(first.meta.nextCursor).to.be.a("string");
    const second = service.listMetrics({ limit: 2, service: "api", cursor: first.meta.nextCursor! });
    expect(second.data.map((m) => m.name)).to.deep.equal(["c"]);
    expect((reader.last("metrics")[0] as MetricListQuery).service).to.equal("api");
    expect(
      refusal(() => service.listMetrics({ limit: 2, cursor: first.meta.nextCursor! }), "invalid_argument"),
    ).to.match(/cursor/);
  });

  it("answers 404 for a known metric without series in the window", () => {
    const { service } = setup();
    expect(refusal(() => service.describeMetric({ name: "tokens", service: "api" }), "not_found")).to.equal(
      'metric "tokens" has no series of service api in the last 15m',
    );
  });

  it("takes groupBy repeated as well as comma-separated", () => {
    const repeated = parseQueryRequest("metricSeries", {}, { name: "x", groupBy: ["service", "attr.k"] });
    const joined = parseQueryRequest("metricSeries", {}, { name: "x", groupBy: "service,attr.k" });
    expect(repeated.groupBy).to.deep.equal(["service", { attr: "k" }]);
    expect(joined.groupBy).to.deep.equal(repeated.groupBy);
    expect(() => parseQueryRequest("metricSeries", {}, { name: ["x", "y"] })).to.throw(/more than once/);
  });
});
