import { expect } from "chai";
import Long from "long";
import { decodeWithin } from "../../../daemon/otlp/decode-allowance.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import { decodeLogProtobuf } from "../../../daemon/otlp/protobuf-logs.js";
import { decodeTraceProtobuf } from "../../../daemon/otlp/protobuf-traces.js";
import { fuzzPayloads, protobufOf, seedObject } from "../../helpers/fuzz-payloads.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";
import { referenceLogs, referenceTraces } from "../../helpers/protobufjs-reference.js";

const TRACE_ID = Buffer.alloc(16, 1);
const SPAN_ID = Buffer.alloc(8, 2);

function traceBytes(spans: Record<string, unknown>[], resource: Record<string, unknown> = {}): Buffer {
  const message = otlpTypes.traceRequest.fromObject({
    resourceSpans: [{ resource, scopeSpans: [{ scope: { name: "s", version: "1" }, spans }] }],
  });
  return Buffer.from(otlpTypes.traceRequest.encode(message).finish());
}

/** A varint's bytes. */
function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field. */
function field(number: number, content: number[]): number[] {
  return [...varint((number << 3) | 2), ...varint(content.length), ...content];
}

/** A request with one span whose own bytes are `spanFields` (after a valid trace and span id). */
function requestWithSpanFields(spanFields: number[]): Buffer {
  const span = [...field(1, [...TRACE_ID]), ...field(2, [...SPAN_ID]), ...spanFields];
  return Buffer.from(field(1, field(2, field(2, span))));
}

describe("OTLP/protobuf reader", () => {
  it("gives exactly the records protobufjs's decoded messages give, on the specification's examples", () => {
    const traces = protobufOf("traces", seedObject("traces"));
    const logs = protobufOf("logs", seedObject("logs"));
    expect(decodeTraceProtobuf(traces)).to.deep.equal(referenceTraces(traces));
    expect(decodeLogProtobuf(logs)).to.deep.equal(referenceLogs(logs));
  });

  it("agrees with protobufjs on 4000 mutated payloads: the same records, or a 400 for both", () => {
    let decoded = 0;
    let stricter = 0;
    for (const payload of fuzzPayloads(20261124, 8000)) {
      if (payload.format !== "protobuf") continue;
      const read = payload.signal === "traces" ? decodeTraceProtobuf : decodeLogProtobuf;
      const reference = payload.signal === "traces" ? referenceTraces : referenceLogs;
      let expected: unknown;
      let referenceError: unknown = null;
      try {
        expected = reference(payload.body);
      } catch (error) {
        referenceError = error;
      }
      let actual: unknown;
      try {
        actual = read(payload.body);
      } catch (error) {
        expect(error, payload.recipe).to.be.instanceOf(PayloadError);
        // The reader is stricter in one way only: a known field sent with another wire type.
        if (referenceError === null) {
          expect((error as Error).message, payload.recipe).to.match(/wire type \d where \d was expected/);
          stricter++;
        }
        continue;
      }
      expect(referenceError, `${payload.recipe}: protobufjs refused what the reader took`).to.equal(null);
      expect(actual, payload.recipe).to.deep.equal(expected);
      decoded++;
    }
    expect(decoded).to.be.above(500);
    expect(stricter).to.be.below(decoded / 10);
  });

  it("keeps int64 attribute values exact at every width, negative ones included", () => {
    const values = ["0", "1", "127", "268435455", "268435456", "9007199254740991", "9007199254740993", "-1"];
    values.push("-9007199254740993", "9223372036854775807", "-9223372036854775808");
    const attributes = values.map((text, i) => ({ key: `k${i}`, value: { intValue: Long.fromString(text) } }));
    const body = traceBytes([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes }]);
    const stored = JSON.parse(decodeTraceProtobuf(body).spans[0]!.attributes) as Record<string, unknown>;
    expect(Object.values(stored).map(String)).to.deep.equal(values);
    expect(stored.k5).to.equal(9007199254740991);
    expect(stored.k6).to.equal("9007199254740993");
    expect(decodeTraceProtobuf(body)).to.deep.equal(referenceTraces(body));
  });

  it("reads a resource that follows its scope list, and keeps the last of a repeated status", () => {
    const scopeSpans = field(2, field(2, [...field(1, [...TRACE_ID]), ...field(2, [...SPAN_ID])]));
    const resource = field(
      1,
      field(1, [...field(1, [...Buffer.from("service.name")]), ...field(2, field(1, [...Buffer.from("late")]))]),
    );
    const late = Buffer.from(field(1, [...scopeSpans, ...resource]));
    expect(decodeTraceProtobuf(late).resources[0]?.serviceName).to.equal("late");
    expect(decodeTraceProtobuf(late)).to.deep.equal(referenceTraces(late));

    const status = (code: number, message: string) => field(15, [...field(2, [...Buffer.from(message)]), 0x18, code]);
    const twice = requestWithSpanFields([...status(2, "first"), ...status(1, "second")]);
    const span = decodeTraceProtobuf(twice).spans[0]!;
    expect([span.statusCode, span.statusMessage]).to.deep.equal([1, "second"]);
    expect(decodeTraceProtobuf(twice)).to.deep.equal(referenceTraces(twice));
  });

  it("refuses a known field sent with another wire type, naming where", () => {
    // Span.name (5) as a varint instead of a string.
    const body = requestWithSpanFields([(5 << 3) | 0, 1]);
    expect(() => decodeTraceProtobuf(body)).to.throw(
      PayloadError,
      "resourceSpans[0].scopeSpans[0].spans[0].name: wire type 0 where 2 was expected",
    );
  });

  it("refuses field number 0, unmatched group ends, truncation and invalid UTF-8 as invalid protobuf", () => {
    expect(() => decodeTraceProtobuf(requestWithSpanFields([0x00, 0x01]))).to.throw(PayloadError, /invalid protobuf/);
    // An unknown field 99 opened as a group and closed as field 98.
    expect(() =>
      decodeTraceProtobuf(requestWithSpanFields([...varint((99 << 3) | 3), ...varint((98 << 3) | 4)])),
    ).to.throw(PayloadError, /invalid protobuf: invalid end group tag/);
    const whole = requestWithSpanFields([]);
    expect(() => decodeTraceProtobuf(whole.subarray(0, whole.length - 2))).to.throw(PayloadError, /invalid protobuf/);
    expect(() => decodeTraceProtobuf(requestWithSpanFields(field(5, [0xc3, 0x28])))).to.throw(
      PayloadError,
      /invalid protobuf/,
    );
  });

  it("refuses attribute values nested deeper than 32 levels, naming where", () => {
    let value: Record<string, unknown> = { stringValue: "deep" };
    for (let i = 0; i < 33; i++) value = { arrayValue: { values: [value] } };
    const body = traceBytes([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes: [{ key: "k", value }] }]);
    expect(() => decodeTraceProtobuf(body)).to.throw(
      PayloadError,
      /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value(\.arrayValue\.values\[0\]){33}: values nested deeper than 32 levels$/,
    );
    let shallow: Record<string, unknown> = { stringValue: "ok" };
    for (let i = 0; i < 32; i++) shallow = { arrayValue: { values: [shallow] } };
    const fine = traceBytes([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes: [{ key: "k", value: shallow }] }]);
    expect(decodeTraceProtobuf(fine)).to.deep.equal(referenceTraces(fine));
  });

  it("names an array or kvlist element sent with the wrong wire type as it always has", () => {
    const key = field(1, [...Buffer.from("k")]);
    const elementAsVarint = [(1 << 3) | 0, 1];
    for (const [member, name] of [
      [5, "arrayValue"],
      [6, "kvlistValue"],
    ] as const) {
      const body = requestWithSpanFields(field(9, [...key, ...field(2, field(member, elementAsVarint))]));
      expect(() => decodeTraceProtobuf(body)).to.throw(
        PayloadError,
        `resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.${name}.values[0].values: wire type 0 where 2 was expected`,
      );
    }
  });

  it("charges events, links, kvlist entries, array items and a log body's items to the decode allowance", () => {
    const value = (v: Record<string, unknown>) => v;
    const traces = traceBytes([
      {
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        events: [{ name: "a", attributes: [{ key: "x", value: value({ stringValue: "1" }) }] }, { name: "b" }],
        links: [{ traceId: TRACE_ID, spanId: SPAN_ID }],
        attributes: [
          {
            key: "list",
            value: {
              kvlistValue: {
                values: [
                  { key: "n", value: { intValue: 1 } },
                  { key: "arr", value: { arrayValue: { values: [{ boolValue: true }, {}, { doubleValue: 2 }] } } },
                ],
              },
            },
          },
        ],
      },
    ]);
    // The span 3, its events 2 and their attribute 1, its link 1, its attribute 1, the kvlist's
    // entries 2 and the array's items 3.
    expect(decodeWithin(100, () => decodeTraceProtobuf(traces)).values).to.equal(3 + 2 + 1 + 1 + 1 + 2 + 3);
    const logs = Buffer.from(
      otlpTypes.logsRequest
        .encode(
          otlpTypes.logsRequest.fromObject({
            resourceLogs: [
              {
                scopeLogs: [
                  {
                    logRecords: [
                      {
                        body: { arrayValue: { values: [{ stringValue: "a" }, { stringValue: "b" }] } },
                        attributes: [{ key: "k", value: { stringValue: "v" } }],
                      },
                    ],
                  },
                ],
              },
            ],
          }),
        )
        .finish(),
    );
    expect(decodeWithin(100, () => decodeLogProtobuf(logs)).values).to.equal(3 + 2 + 1);
  });
});
