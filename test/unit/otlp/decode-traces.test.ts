import { expect } from "chai";
import { decodeLogRequest, decodeMetricRequest, decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { decodeTraces } from "../../../daemon/otlp/decode-traces.js";
import { jsonCodec } from "../../../daemon/otlp/json-codec.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import { otlpFixture, otlpFixtureObject } from "../../helpers/fixtures.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";

function decodeJson(body: unknown) {
  return decodeTraceRequest(Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), "json");
}

function spanRequest(span: Record<string, unknown>, resourceAttributes: unknown[] = []) {
  return {
    resourceSpans: [
      {
        resource: { attributes: resourceAttributes },
        scopeSpans: [
          {
            scope: { name: "s" },
            spans: [{ traceId: "0102030405060708090a0b0c0d0e0f10", spanId: "0102030405060708", name: "op", ...span }],
          },
        ],
      },
    ],
  };
}

describe("OTLP trace decoding", () => {
  it("decodes the OTLP specification's trace example", () => {
    const batch = decodeJson(otlpFixture("trace"));
    expect(batch.spans).to.have.length(1);
    const span = batch.spans[0]!;
    expect(span.traceId).to.equal("5b8efff798038103d269b633813fc60c");
    expect(span.spanId).to.equal("eee19b7ec3c1b174");
    expect(span.parentSpanId).to.equal("eee19b7ec3c1b173");
    expect(span.name).to.equal("I'm a server span");
    expect(span.kind).to.equal(2);
    expect(span.startNs).to.equal(1544712660000000000n);
    expect(span.endNs).to.equal(1544712661000000000n);
    expect(JSON.parse(span.attributes)).to.deep.equal({ "my.span.attr": "some value" });
    expect(span.indexed).to.deep.equal(["my.span.attr", "some value"]);
    expect(batch.resources[span.resource]!.serviceName).to.equal("my.service");
    const scope = batch.scopes[span.scope]!;
    expect(scope.name).to.equal("my.library");
    expect(scope.version).to.equal("1.0.0");
    expect(JSON.parse(scope.attributes)).to.deep.equal({ "my.scope.attribute": "some scope attribute" });
  });

  it("lowercases uppercase hex ids", () => {
    const batch = decodeJson(spanRequest({ traceId: "ABCDEF0102030405060708090A0B0C0D", spanId: "ABCDEF0102030405" }));
    expect(batch.spans[0]!.traceId).to.equal("abcdef0102030405060708090a0b0c0d");
    expect(batch.spans[0]!.spanId).to.equal("abcdef0102030405");
  });

  it("keeps 64-bit timestamps exact whether sent as strings or as bare numbers", () => {
    const asString = decodeJson(
      spanRequest({ startTimeUnixNano: "1700000000123456789", endTimeUnixNano: "1700000000987654321" }),
    );
    expect(asString.spans[0]!.startNs).to.equal(1700000000123456789n);
    // A bare number past 2^53 would be rounded by JSON.parse; the decoder must keep every digit.
    const text = JSON.stringify(spanRequest({ startTimeUnixNano: "X", endTimeUnixNano: "Y" }))
      .replace('"X"', "1700000000123456789")
      .replace('"Y"', "1700000000987654321");
    const asNumber = decodeJson(text);
    expect(asNumber.spans[0]!.startNs).to.equal(1700000000123456789n);
    expect(asNumber.spans[0]!.endNs).to.equal(1700000000987654321n);
  });

  it("keeps every AnyValue kind, nested arrays and kvlists, and bytes", () => {
    const batch = decodeJson(
      spanRequest({
        attributes: [
          { key: "s", value: { stringValue: "text" } },
          { key: "b", value: { boolValue: false } },
          { key: "i", value: { intValue: "42" } },
          { key: "i_num", value: { intValue: 7 } },
          { key: "big", value: { intValue: "9223372036854775807" } },
          { key: "neg", value: { intValue: "-9223372036854775808" } },
          { key: "d", value: { doubleValue: 1.5 } },
          { key: "nan", value: { doubleValue: "NaN" } },
          { key: "bytes", value: { bytesValue: "aGVsbG8=" } },
          {
            key: "arr",
            value: {
              arrayValue: {
                values: [{ stringValue: "x" }, { arrayValue: { values: [{ intValue: "1" }, { boolValue: true }] } }],
              },
            },
          },
          {
            key: "map",
            value: {
              kvlistValue: {
                values: [
                  { key: "inner", value: { kvlistValue: { values: [{ key: "deep", value: { doubleValue: 2 } }] } } },
                ],
              },
            },
          },
          { key: "empty", value: {} },
        ],
      }),
    );
    const span = batch.spans[0]!;
    expect(JSON.parse(span.attributes)).to.deep.equal({
      s: "text",
      b: false,
      i: 42,
      i_num: 7,
      big: "9223372036854775807",
      neg: "-9223372036854775808",
      d: 1.5,
      nan: "NaN",
      bytes: "aGVsbG8=",
      arr: ["x", [1, true]],
      map: { inner: { deep: 2 } },
      empty: null,
    });
    // Exact-match index text: scalars as text, structures as compact JSON, null not indexed.
    const index = Object.fromEntries(
      Array.from({ length: span.indexed.length / 2 }, (_, i) => [span.indexed[2 * i], span.indexed[2 * i + 1]]),
    );
    expect(index).to.include({ s: "text", b: "false", i: "42", d: "1.5", arr: '["x",[1,true]]' });
    expect(index).not.to.have.property("empty");
  });

  it("keeps int64 attribute values exact whether short or long, strings or numbers", () => {
    const sent: unknown[] = ["0", "-0", "7", "007", "-123", "999999999999999", "9007199254740993", 12, -0, 2 ** 53 - 1];
    const attributes = sent.map((intValue, i) => ({ key: `k${i}`, value: { intValue } }));
    const stored = JSON.parse(decodeJson(spanRequest({ attributes })).spans[0]!.attributes) as Record<string, unknown>;
    expect(Object.values(stored)).to.deep.equal([
      0,
      0,
      7,
      7,
      -123,
      999999999999999,
      "9007199254740993",
      12,
      0,
      2 ** 53 - 1,
    ]);
  });

  it("keeps a double past the largest as an infinity, alone or beside an integer past 2^53", () => {
    const attributes = [
      { key: "up", value: { doubleValue: "UP" } },
      { key: "down", value: { doubleValue: "DOWN" } },
      { key: "quoted", value: { doubleValue: "1e400" } },
    ];
    const infinities = { up: "Infinity", down: "-Infinity", quoted: "Infinity" };
    // 1e400 is past 1.8e308: JSON.parse reads it as Infinity, which JSON.stringify wrote as null.
    const alone = JSON.stringify(spanRequest({ attributes })).replace('"UP"', "1e400").replace('"DOWN"', "-1e400");
    expect(JSON.parse(decodeJson(alone).spans[0]!.attributes)).to.deep.equal(infinities);
    // A bare integer past 2^53 makes the decoder parse the body again losslessly.
    const beside = alone.replace('"name":"op"', '"name":"op","startTimeUnixNano":1700000000123456789');
    const span = decodeJson(beside).spans[0]!;
    expect(span.startNs).to.equal(1700000000123456789n);
    expect(JSON.parse(span.attributes)).to.deep.equal(infinities);
  });

  it("stores an attribute named __proto__ as data", () => {
    const batch = decodeJson(
      spanRequest({
        attributes: [
          { key: "__proto__", value: { stringValue: "x" } },
          { key: "dup", value: { stringValue: "first" } },
          { key: "dup", value: { stringValue: "last" } },
        ],
      }),
    );
    expect(batch.spans[0]!.attributes).to.equal('{"__proto__":"x","dup":"last"}');
    expect(batch.spans[0]!.indexed).to.deep.equal(["__proto__", "x", "dup", "last"]);
  });

  it("ignores unknown fields at every level", () => {
    const request = spanRequest({ futureField: { a: 1 }, status: { code: 2, message: "boom", extra: true } });
    (request as any).futureTopLevel = [1, 2];
    (request.resourceSpans[0] as any).somethingNew = "x";
    const batch = decodeJson(request);
    expect(batch.spans[0]!.statusCode).to.equal(2);
    expect(batch.spans[0]!.statusMessage).to.equal("boom");
  });

  it("accepts empty envelopes as zero spans", () => {
    expect(decodeJson({}).spans).to.have.length(0);
    expect(decodeJson({ resourceSpans: [] }).spans).to.have.length(0);
    expect(decodeJson({ resourceSpans: [{ scopeSpans: [{ spans: [] }] }] }).spans).to.have.length(0);
    expect(decodeTraceRequest(Buffer.alloc(0), "json").spans).to.have.length(0);
    expect(decodeTraceRequest(Buffer.alloc(0), "protobuf").spans).to.have.length(0);
  });

  it("names a missing service unknown_service", () => {
    const batch = decodeJson(spanRequest({}));
    expect(batch.resources[0]!.serviceName).to.equal("unknown_service");
  });

  it("refuses ids of the wrong length, naming where", () => {
    expect(() => decodeJson(spanRequest({ traceId: "abcd" }))).to.throw(PayloadError, /spans\[0\]\.traceId/);
    expect(() => decodeJson(spanRequest({ spanId: "0102030405060708aa" }))).to.throw(PayloadError, /spanId/);
    expect(() => decodeJson(spanRequest({ parentSpanId: "01" }))).to.throw(PayloadError, /parentSpanId/);
    expect(() => decodeJson(spanRequest({ traceId: "" }))).to.throw(PayloadError, /trace id/);
    expect(() => decodeJson(spanRequest({ traceId: "zz02030405060708090a0b0c0d0e0f10" }))).to.throw(PayloadError);
  });

  it("names a resource's or scope's schemaUrl where it is, beside the resource or scope", () => {
    const request = spanRequest({});
    const entry = request.resourceSpans[0]!;
    const refusal = (body: unknown) => {
      try {
        decodeJson(body);
      } catch (error) {
        return (error as Error).message;
      }
      return expect.fail("refused");
    };
    expect(refusal({ resourceSpans: [{ ...entry, schemaUrl: 5 }] })).to.match(/^resourceSpans\[0\]\.schemaUrl: /);
    const scopeSpans = [{ ...entry.scopeSpans[0]!, schemaUrl: 5 }];
    expect(refusal({ resourceSpans: [{ ...entry, scopeSpans }] })).to.match(
      /^resourceSpans\[0\]\.scopeSpans\[0\]\.schemaUrl: /,
    );
  });

  it("refuses malformed JSON and wrongly typed values", () => {
    expect(() => decodeJson("{not json")).to.throw(PayloadError, /invalid JSON/);
    expect(() => decodeJson({ resourceSpans: {} })).to.throw(PayloadError, /expected an array/);
    expect(() => decodeJson(spanRequest({ startTimeUnixNano: "soon" }))).to.throw(PayloadError, /startTimeUnixNano/);
    expect(() => decodeJson(spanRequest({ attributes: [{ key: 1, value: {} }] }))).to.throw(PayloadError, /key/);
  });

  it("refuses a JSON body that is not UTF-8, for every signal, as protobuf refuses such a string", () => {
    // 0xC3 0x28: a lead byte followed by a byte that cannot continue it. Decoded leniently it
    // would be stored as U+FFFD, a value the sender never sent.
    const withBadByte = (json: string) => {
      const [before, after] = json.split("BAD") as [string, string];
      return Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);
    };
    const resource = '{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"sBAD"}}]}';
    const traces = withBadByte(
      `{"resourceSpans":[${resource},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"x","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}`,
    );
    const logs = withBadByte(`{"resourceLogs":[${resource},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1"}]}]}]}`);
    const metrics = withBadByte(
      `{"resourceMetrics":[${resource},"scopeMetrics":[{"metrics":[{"name":"m","gauge":{"dataPoints":[{"timeUnixNano":"1","asDouble":1}]}}]}]}]}`,
    );
    expect(() => decodeTraceRequest(traces, "json")).to.throw(PayloadError, /invalid JSON: .*not valid UTF-8/);
    expect(() => decodeLogRequest(logs, "json")).to.throw(PayloadError, /invalid JSON: .*not valid UTF-8/);
    expect(() => decodeMetricRequest(metrics, "json")).to.throw(PayloadError, /invalid JSON: .*not valid UTF-8/);
    // The same bodies with valid UTF-8 in its place decode.
    const fixed = (body: Buffer) => Buffer.from(body.toString("latin1").replace("\xc3(", "e"), "latin1");
    expect(decodeTraceRequest(fixed(traces), "json").spans).to.have.length(1);
  });

  it("keeps events, links, flags, trace state and dropped counts", () => {
    const batch = decodeJson(
      spanRequest({
        traceState: "vendor=1",
        flags: 257,
        droppedAttributesCount: 3,
        droppedEventsCount: 1,
        droppedLinksCount: 2,
        events: [
          {
            timeUnixNano: "1700000000000000001",
            name: "exception",
            attributes: [{ key: "exception.type", value: { stringValue: "Err" } }],
          },
        ],
        links: [
          { traceId: "ffffffffffffffffffffffffffffffff", spanId: "eeeeeeeeeeeeeeee", traceState: "a=b", flags: 1 },
        ],
      }),
    );
    const span = batch.spans[0]!;
    expect(span.traceState).to.equal("vendor=1");
    expect(span.flags).to.equal(257);
    expect([span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]).to.deep.equal([3, 1, 2]);
    expect(JSON.parse(span.events!)).to.deep.equal([
      {
        name: "exception",
        timeUnixNano: "1700000000000000001",
        attributes: { "exception.type": "Err" },
        droppedAttributesCount: 0,
      },
    ]);
    expect(JSON.parse(span.links!)).to.deep.equal([
      {
        traceId: "ffffffffffffffffffffffffffffffff",
        spanId: "eeeeeeeeeeeeeeee",
        traceState: "a=b",
        attributes: {},
        droppedAttributesCount: 0,
        flags: 1,
      },
    ]);
  });

  it("decodes protobuf to exactly the records JSON gives", () => {
    const json = otlpFixtureObject("trace");
    const span = json.resourceSpans[0].scopeSpans[0].spans[0];
    span.status = { code: 2, message: "failed" };
    span.events = [
      { timeUnixNano: "1544712660500000000", name: "e", attributes: [{ key: "k", value: { intValue: "5" } }] },
    ];
    span.attributes.push(
      { key: "bytes", value: { bytesValue: "AAEC" } },
      { key: "big", value: { intValue: "-9007199254740993" } },
    );
    const fromJson = decodeTraces(JSON.parse(JSON.stringify(json)), jsonCodec);

    // Build the protobuf from the same data: hex ids become bytes, int64 text becomes Longs.
    const message = otlpTypes.traceRequest.fromObject({
      resourceSpans: [
        {
          resource: json.resourceSpans[0].resource,
          scopeSpans: [
            {
              scope: json.resourceSpans[0].scopeSpans[0].scope,
              spans: [
                {
                  ...span,
                  traceId: Buffer.from(span.traceId, "hex"),
                  spanId: Buffer.from(span.spanId, "hex"),
                  parentSpanId: Buffer.from(span.parentSpanId, "hex"),
                  attributes: span.attributes.map((a: any) =>
                    a.value.bytesValue
                      ? { key: a.key, value: { bytesValue: Buffer.from(a.value.bytesValue, "base64") } }
                      : a,
                  ),
                },
              ],
            },
          ],
        },
      ],
    });
    const bytes = otlpTypes.traceRequest.encode(message).finish();
    const fromProtobuf = decodeTraceRequest(Buffer.from(bytes), "protobuf");
    expect(fromProtobuf).to.deep.equal(fromJson);
    expect(JSON.parse(fromProtobuf.spans[0]!.attributes).big).to.equal("-9007199254740993");
  });

  it("keeps the last of two AnyValue kinds a protobuf attribute carries, as protobuf's oneof rule says", () => {
    const request = (value: number[]) => {
      // A span whose one attribute "k" has the given AnyValue bytes.
      const message = otlpTypes.traceRequest.fromObject({
        resourceSpans: [
          { scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), name: "x" }] }] },
        ],
      });
      const span = Buffer.from(otlpTypes.traceRequest.encode(message).finish());
      const keyValue = [0x0a, 0x01, 0x6b, 0x12, value.length, ...value]; // key "k", value
      const attribute = [0x4a, keyValue.length, ...keyValue]; // Span.attributes = 9
      // Nested lengths grow by the attribute's size: ResourceSpans > ScopeSpans > Span.
      const grown = Buffer.from(span);
      grown[1] = (grown[1] as number) + attribute.length;
      grown[3] = (grown[3] as number) + attribute.length;
      grown[5] = (grown[5] as number) + attribute.length;
      return decodeTraceRequest(Buffer.concat([grown, Buffer.from(attribute)]), "protobuf");
    };
    const text = [0x0a, 0x01, 0x61]; // stringValue "a"
    const int = [0x18, 0x05]; // intValue 5
    expect(request(text).spans[0]?.attributes).to.equal('{"k":"a"}');
    expect(request([...text, ...int]).spans[0]?.attributes).to.equal('{"k":5}');
    expect(request([...int, ...text]).spans[0]?.attributes).to.equal('{"k":"a"}');
  });

  it("refuses truncated protobuf", () => {
    const message = otlpTypes.traceRequest.fromObject({
      resourceSpans: [
        { scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), name: "x" }] }] },
      ],
    });
    const bytes = Buffer.from(otlpTypes.traceRequest.encode(message).finish());
    expect(() => decodeTraceRequest(bytes.subarray(0, bytes.length - 3), "protobuf")).to.throw(
      PayloadError,
      /protobuf/,
    );
  });

  it("keeps times up to 2^63 - 1 ns and refuses later ones (the store's integers are signed), in both encodings", () => {
    const latest = "9223372036854775807";
    const ok = decodeJson(spanRequest({ startTimeUnixNano: latest, endTimeUnixNano: latest }));
    expect(ok.spans[0]?.startNs).to.equal(2n ** 63n - 1n);
    const late = spanRequest({ startTimeUnixNano: "1", endTimeUnixNano: "9223372036854775808" });
    expect(() => decodeJson(late)).to.throw(
      PayloadError,
      "resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano: 9223372036854775808 ns is after 2262-04-11T23:47:16.854775807Z, the latest time obs can store",
    );
    const message = otlpTypes.traceRequest.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.alloc(16, 1),
                  spanId: Buffer.alloc(8, 2),
                  startTimeUnixNano: "18446744073709551615",
                  endTimeUnixNano: "18446744073709551615",
                },
              ],
            },
          ],
        },
      ],
    });
    const bytes = Buffer.from(otlpTypes.traceRequest.encode(message).finish());
    expect(() => decodeTraceRequest(bytes, "protobuf")).to.throw(
      PayloadError,
      /startTimeUnixNano: 18446744073709551615 ns is after/,
    );
  });
});
