import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import { indexEntriesOf } from "../../../daemon/store/metric-series.js";
import { everyKindRequest } from "../../helpers/metric-requests.js";
import { encodeMetrics, metricsFixture } from "../../helpers/otlp-metrics-protobuf.js";

/** A gauge point whose attributes hold every value kind and the keys JSON and objects treat apart. */
function edgeAttributesRequest(): Record<string, unknown> {
  const attributes = [
    { key: "route", value: { stringValue: "/a" } },
    { key: "10", value: { stringValue: "integer-like key, sent after others" } },
    { key: "2", value: { intValue: "9007199254740993" } },
    { key: "__proto__", value: { stringValue: "data, not a prototype" } },
    { key: "ok", value: { boolValue: false } },
    { key: "ratio", value: { doubleValue: -0.5 } },
    { key: "big", value: { doubleValue: 1e21 } },
    { key: "nan", value: { doubleValue: "NaN" } },
    { key: "list", value: { arrayValue: { values: [{ intValue: "1" }, { stringValue: "x" }] } } },
    { key: "map", value: { kvlistValue: { values: [{ key: "k", value: { boolValue: true } }] } } },
    { key: "empty", value: {} },
    { key: "route", value: { stringValue: "/b (repeated key: the last wins)" } },
  ];
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "edge" } }] },
        scopeMetrics: [
          {
            scope: { name: "meter" },
            metrics: [
              {
                name: "edge.gauge",
                gauge: { dataPoints: [{ timeUnixNano: "1700000000000000000", asDouble: 1, attributes }] },
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("metric series index entries", () => {
  it("derived from a point's attributes JSON are the decoder's own entries, in both encodings", () => {
    const batches = [
      decodeMetricRequest(Buffer.from(metricsFixture()), "json"),
      decodeMetricRequest(Buffer.from(JSON.stringify(everyKindRequest())), "json"),
      decodeMetricRequest(Buffer.from(JSON.stringify(edgeAttributesRequest())), "json"),
      decodeMetricRequest(encodeMetrics(edgeAttributesRequest()), "protobuf"),
    ];
    let compared = 0;
    for (const batch of batches) {
      for (const point of batch.points) {
        expect(indexEntriesOf(point.attributes)).to.deep.equal(point.indexed);
        compared += point.indexed.length / 2;
      }
    }
    // The edge request's entries (all but the null `empty`) were among them, twice.
    expect(compared).to.be.above(2 * 10);
  });

  it("keep a `__proto__` key as data and an int64 past 2^53 as its exact text", () => {
    const [point] = decodeMetricRequest(Buffer.from(JSON.stringify(edgeAttributesRequest())), "json").points;
    if (point === undefined) throw new Error("no point");
    const entries = indexEntriesOf(point.attributes);
    const pairs = new Map<string, string>();
    for (let i = 0; i < entries.length; i += 2) pairs.set(entries[i] as string, entries[i + 1] as string);
    expect(pairs.get("__proto__")).to.equal("data, not a prototype");
    expect(pairs.get("2")).to.equal("9007199254740993");
    expect(pairs.get("route")).to.equal("/b (repeated key: the last wins)");
    expect(pairs.has("empty")).to.equal(false);
  });
});
