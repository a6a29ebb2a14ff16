import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { everyKindRequest, SPAN_ID, T0, TRACE_ID } from "../../helpers/metric-requests.js";
import { metricsFixture } from "../../helpers/otlp-metrics-protobuf.js";

function decodeJson(body: unknown) {
  return decodeMetricRequest(Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), "json");
}

function metricRequest(metric: Record<string, unknown>) {
  return { resourceMetrics: [{ resource: {}, scopeMetrics: [{ scope: {}, metrics: [metric] }] }] };
}

function gaugeRequest(point: Record<string, unknown>) {
  return metricRequest({ name: "g", gauge: { dataPoints: [point] } });
}

function histogramRequest(point: Record<string, unknown>) {
  return metricRequest({ name: "h", histogram: { aggregationTemporality: 1, dataPoints: [point] } });
}

const SPEC_TIME = 1544712660300000000n;

describe("OTLP metrics decoding (OTLP/JSON)", () => {
  it("decodes the OTLP specification's metrics example", () => {
    const batch = decodeJson(metricsFixture());
    expect(batch.resources.map((resource) => resource.serviceName)).to.deep.equal(["my.service"]);
    expect(batch.scopes.map((scope) => [scope.name, scope.version])).to.deep.equal([["my.library", "1.0.0"]]);
    const [counter, gauge, histogram, exponential] = batch.points as MetricPointRecord[];
    expect(batch.points).to.have.length(4);
    expect(counter).to.include({
      name: "my.counter",
      description: "I am a Counter",
      unit: "1",
      kind: "sum",
      temporality: 1,
      monotonic: true,
      value: 5,
      startNs: SPEC_TIME,
      timeNs: SPEC_TIME,
      attributes: '{"my.counter.attr":"some value"}',
      count: null,
      exemplars: null,
    });
    expect(counter?.indexed).to.deep.equal(["my.counter.attr", "some value"]);
    expect(gauge).to.include({ name: "my.gauge", kind: "gauge", temporality: 0, value: 10, startNs: 0n });
    expect(histogram).to.include({ kind: "histogram", temporality: 1, count: 2, sum: 2, min: 0, max: 2, value: null });
    expect(histogram?.bounds).to.deep.equal([1]);
    expect(histogram?.bucketCounts).to.deep.equal([1, 1]);
    expect(exponential).to.include({ name: "my.exponential.histogram", kind: "exponential_histogram", count: 3 });
    expect(exponential?.exponential).to.deep.equal({
      scale: 0,
      zeroCount: 1,
      zeroThreshold: 0,
      positive: { offset: 1, bucketCounts: [0, 2] },
      negative: { offset: 0, bucketCounts: [] },
    });
    for (const point of batch.points) expect([point.resource, point.scope]).to.deep.equal([0, 0]);
  });

  it("decodes every point kind and field", () => {
    const points = decodeJson(everyKindRequest()).points;
    expect(points.map((point) => `${point.name}:${point.kind}`)).to.deep.equal([
      "queue.depth:gauge",
      "queue.depth:gauge",
      "queue.depth:gauge",
      "queue.depth:gauge",
      "requests:sum",
      "balance:sum",
      "latency:histogram",
      "latency:histogram",
      "size:exponential_histogram",
      "size:exponential_histogram",
      "rpc.duration:summary",
    ]);
    const [g1, g2, g3, g4, requests, balance, h1, h2, e1, e2, summary] = points as MetricPointRecord[];
    expect(g1).to.include({
      description: "Items waiting",
      unit: "{item}",
      value: 3.5,
      metadata: '{"origin":"sampler"}',
    });
    expect(g1).to.include({ attributes: '{"queue":"a"}', timeNs: T0 + 10n, temporality: 0, monotonic: false });
    expect(g2).to.include({ value: -42, flags: 1, attributes: "{}" });
    expect(g3?.value).to.be.NaN;
    // Past 2^53 an int64 loses its low digits, as records.ts says.
    expect(g4?.value).to.equal(9007199254740992);
    expect(requests).to.include({ temporality: 2, monotonic: true, value: 17, startNs: T0, metadata: null });
    expect(requests?.indexed).to.deep.equal(["code", "200", "ok", "true"]);
    expect(JSON.parse(requests?.exemplars ?? "null")).to.deep.equal([
      {
        time: "2023-11-14T22:13:20.000000001Z",
        timeUnixNano: (T0 + 1n).toString(),
        value: 1,
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        attributes: { user: "ann" },
      },
    ]);
    expect(balance).to.include({ temporality: 1, monotonic: false, value: Number.NEGATIVE_INFINITY });
    expect(h1).to.include({ temporality: 2, count: 6, sum: 1.5, min: 0.01, max: 0.9, value: null, quantiles: null });
    expect([h1?.bounds, h1?.bucketCounts]).to.deep.equal([
      [0.1, 0.5],
      [1, 2, 3],
    ]);
    const exemplars = JSON.parse(h1?.exemplars ?? "null");
    expect(exemplars.map((e: { value: unknown; traceId: unknown }) => [e.value, e.traceId])).to.deep.equal([
      [0.25, TRACE_ID],
      ["Infinity", null],
    ]);
    expect(h2).to.include({ count: 0, sum: null, min: null, max: null, exemplars: null });
    expect([h2?.bounds, h2?.bucketCounts]).to.deep.equal([[], []]);
    expect(e1).to.include({ temporality: 1, count: 9, sum: -2, min: -8, max: 100 });
    expect(e1?.exponential).to.deep.equal({
      scale: -3,
      zeroCount: 1,
      zeroThreshold: 1e-9,
      positive: { offset: -2, bucketCounts: [0, 4, 1] },
      negative: { offset: 5, bucketCounts: [3] },
    });
    expect(e2).to.include({ count: 0, sum: null, min: null, startNs: 0n });
    expect(e2?.exponential?.scale).to.equal(4);
    expect(summary).to.include({ temporality: 0, count: 4, sum: 10, value: null, bounds: null, exponential: null });
    expect(summary?.quantiles).to.deep.equal([
      [0, 1],
      [0.5, 2.5],
      [1, 4],
    ]);
  });

  it("takes ids in any case and all-zero exemplar ids as absent", () => {
    const point = decodeJson(
      gaugeRequest({
        asDouble: 1,
        exemplars: [{ asDouble: 1, traceId: TRACE_ID.toUpperCase(), spanId: "0000000000000000" }],
      }),
    ).points[0];
    const [exemplar] = JSON.parse(point?.exemplars ?? "[]");
    expect([exemplar.traceId, exemplar.spanId, exemplar.value]).to.deep.equal([TRACE_ID, null, 1]);
  });

  it("reads 64-bit integers sent as bare JSON numbers past 2^53 without refusing them", () => {
    const body = JSON.stringify(histogramRequest({ count: 1 })).replace('"count":1', '"count":18446744073709551615');
    expect(decodeJson(body).points[0]?.count).to.equal(2 ** 64);
  });

  it("reads a double past the largest as an infinity, also when the body is parsed again losslessly", () => {
    const body = JSON.stringify(gaugeRequest({ timeUnixNano: "1", asDouble: "X" })).replace('"X"', "-1e400");
    expect(decodeJson(body).points[0]?.value).to.equal(Number.NEGATIVE_INFINITY);
    const lossless = body.replace('"timeUnixNano":"1"', '"timeUnixNano":1700000000123456789');
    expect(decodeJson(lossless).points[0]?.value).to.equal(Number.NEGATIVE_INFINITY);
  });

  it("leaves a value absent when a number point sends none", () => {
    expect(decodeJson(gaugeRequest({ timeUnixNano: "1", flags: 1 })).points[0]?.value).to.equal(null);
  });

  const invalid: [string, unknown, RegExp][] = [
    ["a value of the wrong type", gaugeRequest({ asDouble: true }), /dataPoints\[0\]\.asDouble: expected a number/],
    ["an int value that is not an integer", gaugeRequest({ asInt: "1.5" }), /dataPoints\[0\]\.asInt/],
    ["both asDouble and asInt", gaugeRequest({ asDouble: 1, asInt: "1" }), /dataPoints\[0\]: .*not both/],
    ["data points that are not a list", metricRequest({ gauge: { dataPoints: {} } }), /gauge\.dataPoints: expected/],
    ["a data field that is not an object", metricRequest({ sum: 3 }), /metrics\[0\]\.sum: expected an object/],
    ["two data fields", metricRequest({ gauge: {}, sum: {} }), /metrics\[0\]: a metric holds one data field/],
    ["a name that is not a string", metricRequest({ name: 5, gauge: {} }), /metrics\[0\]\.name: expected a string/],
    [
      "an unknown temporality",
      metricRequest({ sum: { aggregationTemporality: 7 } }),
      /sum\.aggregationTemporality: unknown aggregation temporality 7/,
    ],
    [
      "an unknown temporality name",
      metricRequest({ histogram: { aggregationTemporality: "AGGREGATION_TEMPORALITY_SOMETIMES" } }),
      /histogram\.aggregationTemporality: unknown value/,
    ],
    [
      "isMonotonic that is not a boolean",
      metricRequest({ sum: { isMonotonic: "yes" } }),
      /sum\.isMonotonic: expected a boolean/,
    ],
    [
      "a count that is not an integer",
      histogramRequest({ count: "many" }),
      /dataPoints\[0\]\.count: expected an integer/,
    ],
    [
      "a bucket count that is negative",
      histogramRequest({ bucketCounts: ["-1"] }),
      /dataPoints\[0\]\.bucketCounts\[0\]: out of range/,
    ],
    [
      "more bounds than counts allow",
      histogramRequest({ bucketCounts: ["1", "2"], explicitBounds: [1, 2] }),
      /dataPoints\[0\]\.bucketCounts: 2 bucket counts for 2 explicit bounds/,
    ],
    [
      "bounds that do not increase",
      histogramRequest({ bucketCounts: ["1", "2", "3"], explicitBounds: [2, 1] }),
      /dataPoints\[0\]\.explicitBounds\[1\]: bounds must increase/,
    ],
    [
      "a scale that is not an integer",
      metricRequest({ exponentialHistogram: { dataPoints: [{ scale: 0.5 }] } }),
      /dataPoints\[0\]\.scale: expected a 32-bit integer/,
    ],
    [
      "a scale past the data model's 20",
      metricRequest({ name: "e", exponentialHistogram: { dataPoints: [{ scale: 21 }] } }),
      /dataPoints\[0\]\.scale: expected a scale from -10 to 20, got 21/,
    ],
    [
      "a scale below the data model's -10",
      metricRequest({ name: "e", exponentialHistogram: { dataPoints: [{ scale: -11 }] } }),
      /dataPoints\[0\]\.scale: expected a scale from -10 to 20, got -11/,
    ],
    [
      "points of a metric without a name",
      metricRequest({ name: "", gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric with data points needs a name/,
    ],
    [
      "points of a metric whose name is too long to ask for",
      metricRequest({ name: "n".repeat(1025), gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric name of 1025 bytes \(UTF-8\) is longer than the 1024 obs keeps/,
    ],
    [
      "points of a metric whose name takes more than 1,024 bytes of UTF-8, in fewer characters",
      metricRequest({ name: "é".repeat(513), gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric name of 1026 bytes/,
    ],
    [
      "points of a metric whose name has half of a surrogate pair, which no query could name",
      metricRequest({ name: "sur\ud800x", gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric name must be Unicode text/,
    ],
    [
      "a bucket side that is not an object",
      metricRequest({ exponentialHistogram: { dataPoints: [{ positive: [] }] } }),
      /dataPoints\[0\]\.positive: expected an object/,
    ],
    [
      "a quantile that is not a number",
      metricRequest({ summary: { dataPoints: [{ quantileValues: [{ quantile: "half" }] }] } }),
      /quantileValues\[0\]\.quantile: expected a number/,
    ],
    [
      "an exemplar trace id of the wrong length",
      gaugeRequest({ exemplars: [{ traceId: "abc" }] }),
      /dataPoints\[0\]\.exemplars\[0\]\.traceId: expected 16 bytes/,
    ],
    [
      "an exemplar span id that is not hex",
      histogramRequest({ exemplars: [{}, { spanId: "zzzzzzzzzzzzzzzz" }] }),
      /dataPoints\[0\]\.exemplars\[1\]\.spanId: expected 8 bytes/,
    ],
    [
      "a point time past what the store keeps",
      gaugeRequest({ timeUnixNano: "18446744073709551615" }),
      /dataPoints\[0\]\.timeUnixNano: .*the latest time obs can store/,
    ],
    [
      "a metadata attribute without a key",
      metricRequest({ metadata: [{ value: { stringValue: "x" } }], gauge: {} }),
      /metrics\[0\]\.metadata\[0\]\.key: expected a string/,
    ],
  ];
  for (const [what, request, message] of invalid) {
    it(`refuses ${what}, naming where`, () => {
      expect(() => decodeJson(request)).to.throw(PayloadError, message);
    });
  }

  it("adds no point for a metric without data, and none for an empty body", () => {
    expect(decodeJson(metricRequest({ name: "nothing" })).points).to.deep.equal([]);
    expect(decodeMetricRequest(Buffer.alloc(0), "json")).to.deep.equal({ resources: [], scopes: [], points: [] });
  });
});
