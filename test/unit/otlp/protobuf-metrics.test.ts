import { expect } from "chai";
import protobuf from "protobufjs";
import { decodeWithin, TooManyValuesError } from "../../../daemon/otlp/decode-allowance.js";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import { everyKindRequest, protobufForm, TRACE_ID } from "../../helpers/metric-requests.js";
import { encodeMetrics, metricsFixture, metricsTypes, referenceMetrics } from "../../helpers/otlp-metrics-protobuf.js";

function metricRequest(metric: Record<string, unknown>) {
  return { resourceMetrics: [{ resource: {}, scopeMetrics: [{ scope: {}, metrics: [metric] }] }] };
}

/** A length-delimited field `no` holding `bytes`. */
function wrap(no: number, bytes: Uint8Array): Buffer {
  return Buffer.from(
    protobuf.Writer.create()
      .uint32((no << 3) | 2)
      .bytes(bytes)
      .finish(),
  );
}

/** A request of one resource, one scope and the one Metric whose encoded fields are `metric`. */
function inEnvelope(metric: Uint8Array): Buffer {
  return wrap(1, wrap(2, wrap(2, metric)));
}

/**
 * A body decoded as obsd decodes it, its points' attribute set numbers left out: those are the
 * decoder thread's own (known-point-attributes.ts, tested below), which decoding the JSON form
 * or protobufjs's reading of the same bytes does not give.
 */
function decodeProtobuf(body: Buffer) {
  const batch = decodeMetricRequest(body, "protobuf");
  return { ...batch, points: batch.points.map((point) => ({ ...point, attributeSet: 0 })) };
}

describe("OTLP metrics decoding (OTLP/protobuf)", () => {
  it("gives a point's attributes in sorted key order in both encodings, whatever order they were sent in", () => {
    const attribute = (key: string, value: number) => ({ key, value: { intValue: value } });
    const gauge = (attributes: unknown[]) =>
      metricRequest({ name: "g", gauge: { dataPoints: [{ timeUnixNano: "1000", asDouble: 5, attributes }] } });
    for (const sent of [
      [attribute("b", 2), attribute("a", 1), attribute("10", 4), attribute("2", 3)],
      [attribute("2", 3), attribute("a", 1), attribute("b", 2), attribute("10", 4)],
    ]) {
      const request = gauge(sent);
      for (const decoded of [
        decodeMetricRequest(Buffer.from(JSON.stringify(request)), "json"),
        decodeProtobuf(encodeMetrics(protobufForm(request) as Record<string, unknown>)),
      ]) {
        expect(decoded.points[0]?.attributes).to.equal('{"2":3,"10":4,"a":1,"b":2}');
        expect(decoded.points[0]?.indexed).to.deep.equal(["2", "3", "10", "4", "a", "1", "b", "2"]);
      }
    }
  });

  const requests: [string, Record<string, unknown>][] = [
    ["the specification's example", JSON.parse(metricsFixture())],
    ["every point kind and field", everyKindRequest()],
  ];

  for (const [what, request] of requests) {
    it(`reads ${what} as protobufjs does`, () => {
      const body = encodeMetrics(protobufForm(request) as Record<string, unknown>);
      const decoded = decodeProtobuf(body);
      expect(decoded.points.length).to.be.above(3);
      expect(decoded).to.deep.equal(referenceMetrics(body));
    });

    it(`gives for ${what} the records OTLP/JSON gives`, () => {
      const body = encodeMetrics(protobufForm(request) as Record<string, unknown>);
      const fromJson = decodeMetricRequest(Buffer.from(JSON.stringify(request)), "json");
      expect(decodeProtobuf(body)).to.deep.equal(fromJson);
    });

    it(`charges ${what} to the decode allowance alike in both encodings`, () => {
      const body = encodeMetrics(protobufForm(request) as Record<string, unknown>);
      const json = Buffer.from(JSON.stringify(request));
      const fromJson = decodeWithin(Number.POSITIVE_INFINITY, () => decodeMetricRequest(json, "json"));
      const fromProtobuf = decodeWithin(Number.POSITIVE_INFINITY, () => decodeProtobuf(body));
      expect(fromProtobuf.values).to.be.above(fromProtobuf.result.points.length * 3);
      expect(fromProtobuf.values).to.equal(fromJson.values);
      expect(() => decodeWithin(fromJson.values - 1, () => decodeProtobuf(body))).to.throw(TooManyValuesError);
      expect(() => decodeWithin(fromJson.values - 1, () => decodeMetricRequest(json, "json"))).to.throw(
        TooManyValuesError,
      );
    });
  }

  it("keeps the data field sent last, as protobuf's oneof rule says", () => {
    const metric = metricsTypes.root.lookupType("opentelemetry.proto.metrics.v1.Metric");
    const gauge = metric.encode(metric.fromObject({ name: "m", gauge: { dataPoints: [{ asDouble: 1 }] } })).finish();
    const sum = metric
      .encode(metric.fromObject({ sum: { aggregationTemporality: 2, dataPoints: [{ asInt: 2 }, { asInt: 3 }] } }))
      .finish();
    // One Metric whose bytes hold both data fields: the name from the first, the sum last.
    const body = inEnvelope(Buffer.concat([gauge, sum]));
    expect(decodeProtobuf(body).points.map((point) => [point.name, point.kind, point.value])).to.deep.equal([
      ["m", "sum", 2],
      ["m", "sum", 3],
    ]);
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    [
      "an exemplar trace id of the wrong length",
      metricRequest({ gauge: { dataPoints: [{ exemplars: [{ traceId: Buffer.from("abcd", "hex") }] }] } }),
      /resourceMetrics\[0\]\.scopeMetrics\[0\]\.metrics\[0\]\.gauge\.dataPoints\[0\]\.exemplars\[0\]\.traceId/,
    ],
    [
      "bucket counts that do not match the bounds",
      metricRequest({ histogram: { dataPoints: [{}, { bucketCounts: [1], explicitBounds: [1, 2] }] } }),
      /metrics\[0\]\.histogram\.dataPoints\[1\]\.bucketCounts: 1 bucket counts for 2 explicit bounds/,
    ],
    [
      "bounds that do not increase",
      metricRequest({ histogram: { dataPoints: [{ bucketCounts: [1, 1, 1], explicitBounds: [5, 5] }] } }),
      /dataPoints\[0\]\.explicitBounds\[1\]: bounds must increase/,
    ],
    [
      "an unknown temporality",
      metricRequest({ exponentialHistogram: { aggregationTemporality: 9 } }),
      /metrics\[0\]\.exponentialHistogram\.aggregationTemporality: unknown aggregation temporality 9/,
    ],
    [
      "a scale past the data model's 20",
      metricRequest({ name: "e", exponentialHistogram: { dataPoints: [{ scale: 21 }] } }),
      /exponentialHistogram\.dataPoints\[0\]\.scale: expected a scale from -10 to 20, got 21/,
    ],
    [
      "points of a metric without a name",
      metricRequest({ gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric with data points needs a name/,
    ],
    [
      "points of a metric whose name is too long to ask for",
      metricRequest({ name: "n".repeat(1025), gauge: { dataPoints: [{ asDouble: 1 }] } }),
      /metrics\[0\]\.name: a metric name of 1025 bytes \(UTF-8\) is longer than the 1024 obs keeps/,
    ],
    [
      "a time past what the store keeps",
      metricRequest({ summary: { dataPoints: [{ timeUnixNano: "18446744073709551615" }] } }),
      /summary\.dataPoints\[0\]\.timeUnixNano: .*the latest time obs can store/,
    ],
  ];
  for (const [what, request, message] of invalid) {
    it(`refuses ${what}, naming where`, () => {
      expect(() => decodeProtobuf(encodeMetrics(request))).to.throw(PayloadError, message);
    });
  }

  it("refuses a known field sent with another wire type, naming it", () => {
    // A NumberDataPoint's time_unix_nano (field 3, fixed64) sent as a varint, in a gauge (5) of a metric.
    const gauge = wrap(5, wrap(1, Buffer.from([0x18, 0x01])));
    expect(() => decodeProtobuf(inEnvelope(gauge))).to.throw(
      PayloadError,
      /metrics\[0\]\.gauge\.dataPoints\[0\]\.timeUnixNano: wire type 0 where 1 was expected/,
    );
  });

  it("refuses a truncated body as invalid protobuf", () => {
    const body = encodeMetrics(protobufForm(everyKindRequest()) as Record<string, unknown>);
    expect(() => decodeProtobuf(body.subarray(0, body.length - 3))).to.throw(PayloadError);
  });

  it("reads ids as lower-case hex", () => {
    const body = encodeMetrics(
      metricRequest({ name: "s", sum: { dataPoints: [{ exemplars: [{ traceId: Buffer.from(TRACE_ID, "hex") }] }] } }),
    );
    const [exemplar] = JSON.parse(decodeProtobuf(body).points[0]?.exemplars ?? "[]");
    expect(exemplar.traceId).to.equal(TRACE_ID);
  });
});

describe("OTLP metrics decoding (OTLP/protobuf), point attributes known by their bytes", () => {
  // Values no other test sends, so the first decode of each set here is a real one.
  let unique = 0;
  const fresh = (what: string) => `${what}-${process.pid}-${++unique}-${Math.random()}`;

  /** A point's attribute field (7) holding the KeyValue `key` = string `value`. */
  function attribute(key: string, value: string): Buffer {
    const any = protobuf.Writer.create().uint32(10).string(value).finish();
    return wrap(7, protobuf.Writer.create().uint32(10).string(key).uint32(18).bytes(any).finish());
  }
  const TIME = Buffer.from(protobuf.Writer.create().uint32(0x19).fixed64(1000).finish());
  /** A gauge metric of the NumberDataPoints whose encoded fields are `points`. */
  function gaugeOf(points: Buffer[]): Buffer {
    const name = Buffer.from(protobuf.Writer.create().uint32(10).string("g").finish());
    return inEnvelope(Buffer.concat([name, wrap(5, Buffer.concat(points.map((point) => wrap(1, point))))]));
  }
  const attributesOf = (body: Buffer) => decodeProtobuf(body).points.map((point) => JSON.parse(point.attributes));

  it("gives each point its own attributes, the second decode of the same bytes as the first", () => {
    const [a, b] = [fresh("a"), fresh("b")];
    const body = gaugeOf([
      Buffer.concat([attribute("k", a), attribute("z", "1"), TIME]),
      Buffer.concat([attribute("k", b), attribute("z", "1"), TIME]),
      Buffer.concat([attribute("k", a), attribute("z", "1"), TIME]),
    ]);
    const expected = [
      { k: a, z: "1" },
      { k: b, z: "1" },
      { k: a, z: "1" },
    ];
    expect(attributesOf(body)).to.deep.equal(expected);
    expect(attributesOf(body)).to.deep.equal(expected);
    expect(decodeProtobuf(body)).to.deep.equal(referenceMetrics(body));
  });

  it("merges attributes sent apart, a repeated key keeping its last value, whether or not their first run is known", () => {
    const a = fresh("a");
    const together = Buffer.concat([attribute("a", a), attribute("b", "2"), TIME]);
    const apart = Buffer.concat([
      attribute("a", a),
      attribute("b", "2"),
      TIME,
      attribute("b", "3"),
      attribute("c", "4"),
    ]);
    const merged = { a, b: "3", c: "4" };
    // The run known from the point before it, then the same points the other way round.
    expect(attributesOf(gaugeOf([together, apart, together]))).to.deep.equal([{ a, b: "2" }, merged, { a, b: "2" }]);
    const a2 = fresh("a");
    const together2 = Buffer.concat([attribute("a", a2), attribute("b", "2"), TIME]);
    const apart2 = Buffer.concat([attribute("a", a2), attribute("b", "2"), TIME, attribute("b", "3")]);
    expect(attributesOf(gaugeOf([apart2, together2, apart2]))).to.deep.equal([
      { a: a2, b: "3" },
      { a: a2, b: "2" },
      { a: a2, b: "3" },
    ]);
  });

  /** A point's attribute field (7) holding `key` = an array of `items` empty values and a kvlist of two. */
  function nestedAttribute(key: string, items: number): Buffer {
    const empty = wrap(1, Buffer.alloc(0));
    const array = wrap(5, Buffer.concat(Array.from({ length: items }, () => empty)));
    const entry = (name: string) => wrap(1, protobuf.Writer.create().uint32(10).string(name).finish());
    const list = wrap(6, Buffer.concat([entry("x"), entry("y")]));
    const kv = (value: Buffer) =>
      wrap(7, Buffer.concat([Buffer.from(protobuf.Writer.create().uint32(10).string(key).finish()), wrap(2, value)]));
    return Buffer.concat([kv(array), kv(list)]);
  }

  it("charges known attributes to the decode allowance as if they were read, nested values included", () => {
    const body = gaugeOf([
      Buffer.concat([attribute("k", fresh("k")), attribute("z", "1"), nestedAttribute("n", 300), TIME]),
    ]);
    const first = decodeWithin(Number.POSITIVE_INFINITY, () => decodeProtobuf(body));
    const second = decodeWithin(Number.POSITIVE_INFINITY, () => decodeProtobuf(body));
    expect(second.values).to.equal(first.values).and.to.be.above(300);
    expect(second.result).to.deep.equal(first.result);
    expect(() => decodeWithin(first.values - 1, () => decodeProtobuf(body))).to.throw(TooManyValuesError);
  });

  it("numbers each attribute set it keeps, one number per JSON text, whatever order its keys came in", () => {
    const k = fresh("k");
    const body = gaugeOf([
      Buffer.concat([attribute("k", k), attribute("z", "1"), TIME]),
      Buffer.concat([attribute("z", "1"), attribute("k", k), TIME]),
      Buffer.concat([attribute("k", k), attribute("z", "2"), TIME]),
    ]);
    const sets = () => decodeMetricRequest(body, "protobuf").points.map((point) => point.attributeSet);
    const [first, reordered, other] = sets();
    expect(first).to.be.above(0);
    expect(reordered).to.equal(first);
    expect(other).to.be.above(0).and.not.equal(first);
    // Recalled the second time, each point carries the number it was kept with.
    expect(sets()).to.deep.equal([first, reordered, other]);
    // A point whose attributes come in two runs is read each time, and not kept.
    const split = gaugeOf([Buffer.concat([attribute("k", k), TIME, attribute("z", "1")])]);
    expect(decodeMetricRequest(split, "protobuf").points.map((point) => point.attributeSet)).to.deep.equal([0]);
  });
});
