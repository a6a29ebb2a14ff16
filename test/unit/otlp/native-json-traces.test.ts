import { expect } from "chai";
import { makeWorkload } from "../../../bench/span-workload.js";
import { decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { decodeTraceJsonNatively, nativeJsonDecoderLoaded } from "../../../daemon/otlp/native-json-traces.js";
import { type PackedSpanBatch, packSpans } from "../../../daemon/store/packed-batch.js";
import { otlpFixture } from "../../helpers/fixtures.js";
import { fuzzPayloads, seededRandom } from "../../helpers/fuzz-payloads.js";

const TRACE_ID = "0102030405060708090a0b0c0d0e0f10";
const SPAN_ID = "0102030405060708";

function body(request: unknown): Buffer {
  return Buffer.from(typeof request === "string" ? request : JSON.stringify(request));
}

function spanRequest(span: Record<string, unknown>, resource: unknown = { attributes: [] }): unknown {
  return {
    resourceSpans: [
      {
        resource,
        scopeSpans: [{ scope: { name: "s" }, spans: [{ traceId: TRACE_ID, spanId: SPAN_ID, name: "op", ...span }] }],
      },
    ],
  };
}

function withAttributes(attributes: unknown[]): unknown {
  return spanRequest({ attributes });
}

function javaScriptDecoding(bytes: Buffer): PackedSpanBatch {
  return packSpans(decodeTraceRequest(bytes, "json"));
}

/** The native decoder takes the request and gives exactly what the JavaScript decoder gives. */
function expectSameAsJavaScript(request: unknown): PackedSpanBatch {
  const bytes = body(request);
  const native = decodeTraceJsonNatively(bytes);
  expect(native, "the native decoder declined a request it should take").not.to.equal(undefined);
  const reference = javaScriptDecoding(bytes);
  expect(native).to.deep.equal(reference);
  return native as PackedSpanBatch;
}

function attributesOf(batch: PackedSpanBatch): unknown {
  return JSON.parse(batch.fields[11] as string);
}

/** A random AnyValue of every kind, nested up to `depth` levels. */
function randomAnyValue(random: () => number, depth: number): unknown {
  const kind = Math.floor(random() * (depth > 0 ? 8 : 6));
  switch (kind) {
    case 0:
      return { stringValue: randomText(random) };
    case 1:
      return { boolValue: random() < 0.5 };
    case 2: {
      const n = Math.floor((random() - 0.5) * 2 ** (1 + Math.floor(random() * 49)));
      return { intValue: random() < 0.5 ? n : String(n) };
    }
    case 3:
      return { doubleValue: randomDouble(random) };
    case 4:
      return { bytesValue: Buffer.from(randomText(random)).toString("base64") };
    case 5:
      return random() < 0.5 ? {} : { stringValue: "" };
    case 6:
      return {
        arrayValue: {
          values: Array.from({ length: Math.floor(random() * 4) }, () => randomAnyValue(random, depth - 1)),
        },
      };
    default:
      return {
        kvlistValue: {
          values: Array.from({ length: Math.floor(random() * 4) }, (_, i) => ({
            key: `k${i}.${randomText(random)}`,
            value: randomAnyValue(random, depth - 1),
          })),
        },
      };
  }
}

const ALPHABET = ["a", "Z", "0", " ", '"', "\\", "\n", "\t", "\u0001", "\u001f", "é", "€", "😀", "\u2028", "/", "<"];

function randomText(random: () => number): string {
  return Array.from({ length: Math.floor(random() * 12) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join(
    "",
  );
}

/** A finite double from random bits, so every magnitude and digit count comes up. */
function randomDouble(random: () => number): number {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, Math.floor(random() * 2 ** 32));
    view.setUint32(4, Math.floor(random() * 2 ** 32));
    const value = view.getFloat64(0);
    if (Number.isFinite(value)) return value;
  }
}

describe("native OTLP/JSON trace decoding", () => {
  it("is built by npm install and loaded", () => {
    expect(nativeJsonDecoderLoaded).to.equal(true);
  });

  it("gives exactly the JavaScript decoder's packed batch for the OTLP example and the benchmark's requests", () => {
    expectSameAsJavaScript(otlpFixture("trace"));
    const workload = makeWorkload(2, 3, 1_700_000_000_000_000_000n);
    for (const request of workload.json)
      expect(expectSameAsJavaScript(request.toString()).fields).to.have.length(512 * 19);
  });

  it("lowercases uppercase hex ids and drops an all-zero parent", () => {
    const batch = expectSameAsJavaScript(
      spanRequest({ traceId: TRACE_ID.toUpperCase(), spanId: "ABCDEF0102030405", parentSpanId: "0000000000000000" }),
    );
    expect(batch.strings[batch.fields[0] as number]).to.equal(TRACE_ID);
    expect(batch.fields[1]).to.equal("abcdef0102030405");
    expect(batch.fields[2]).to.equal(-1);
  });

  it("reads times, counts, flags and enums as strings, numbers or proto names", () => {
    const batch = expectSameAsJavaScript(
      spanRequest({
        startTimeUnixNano: 1_700_000_000_000,
        endTimeUnixNano: "9223372036854775807",
        flags: "257",
        kind: "SPAN_KIND_CONSUMER",
        status: { code: "STATUS_CODE_ERROR", message: "boom" },
        droppedAttributesCount: 4294967295,
        droppedEventsCount: "2",
        droppedLinksCount: 0,
        traceState: "vendor=1",
      }),
    );
    expect(batch.fields.slice(3, 11)).to.deep.equal([
      "vendor=1",
      257,
      batch.fields[5],
      5,
      1_700_000_000_000n,
      2n ** 63n - 1n,
      2,
      "boom",
    ]);
    expectSameAsJavaScript(spanRequest({ kind: "3", status: { code: 1 }, name: null, traceState: "" }));
  });

  it("keeps every AnyValue kind, nested arrays and kvlists, bytes, and NaN and the infinities", () => {
    const batch = expectSameAsJavaScript(
      withAttributes([
        { key: "s", value: { stringValue: "text" } },
        { key: "b", value: { boolValue: false } },
        { key: "i", value: { intValue: "42" } },
        { key: "i_num", value: { intValue: 7 } },
        { key: "neg", value: { intValue: "-999999999999999" } },
        { key: "d", value: { doubleValue: 1.5 } },
        { key: "d_text", value: { doubleValue: "-Infinity" } },
        { key: "nan", value: { doubleValue: "NaN" } },
        { key: "bytes", value: { bytesValue: "aGVsbG8=" } },
        {
          key: "arr",
          value: {
            arrayValue: { values: [{ stringValue: "x" }, { arrayValue: { values: [{ intValue: "1" }, null] } }] },
          },
        },
        { key: "map", value: { kvlistValue: { values: [{ key: "inner", value: { kvlistValue: {} } }] } } },
        { key: "empty", value: {} },
        { key: "missing" },
        { key: "__proto__", value: { stringValue: "data" } },
      ]),
    );
    expect(attributesOf(batch)).to.deep.equal({
      s: "text",
      b: false,
      i: 42,
      i_num: 7,
      neg: -999999999999999,
      d: 1.5,
      d_text: "-Infinity",
      nan: "NaN",
      bytes: "aGVsbG8=",
      arr: ["x", [1, null]],
      map: { inner: {} },
      empty: null,
      missing: null,
      ["__proto__"]: "data",
    });
  });

  it("writes doubles exactly as JavaScript does, at every magnitude", () => {
    const special = [
      0.1,
      -0,
      100,
      1e20,
      1e21,
      1.5e21,
      1e-6,
      1e-7,
      123e-20,
      5e-324,
      1.7976931348623157e308,
      2 ** 53 + 2,
    ];
    const random = seededRandom(11);
    // Integers of 20 digits and more, as JSON.stringify writes doubles from 2^64 to 1e21, are past
    // what simdjson reads as a number; such a request goes to the JavaScript decoder.
    const longInteger = (value: number) => /^-?\d{20,}$/.test(JSON.stringify(value));
    expect(decodeTraceJsonNatively(body(withAttributes([{ key: "d", value: { doubleValue: 1e20 } }])))).to.equal(
      undefined,
    );
    const values = [...special, ...Array.from({ length: 3000 }, () => randomDouble(random))].filter(
      (value) => !longInteger(value),
    );
    for (let i = 0; i < values.length; i += 100) {
      const chunk = values.slice(i, i + 100);
      expectSameAsJavaScript(withAttributes(chunk.map((doubleValue, k) => ({ key: `d${k}`, value: { doubleValue } }))));
    }
  });

  it("escapes keys and strings exactly as JSON.stringify does", () => {
    const texts = [
      'quote " and back \\ slash',
      "tab\tnew\nline\r\b\f",
      "\u0000\u0001\u001f\u007f",
      "é € 😀 \u2028 \u2029",
    ];
    expectSameAsJavaScript(withAttributes(texts.map((text) => ({ key: text, value: { stringValue: text } }))));
    expectSameAsJavaScript(spanRequest({ name: texts.join("|"), status: { message: texts[1] } }));
  });

  it("keeps events, links, many attributes, and resources and scopes shared across entries", () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ key: `attr.${i}`, value: { intValue: i } }));
    const request = spanRequest({
      attributes: many,
      events: [
        { timeUnixNano: "18446744073709551615", name: "exception", attributes: many.slice(0, 3) },
        { droppedAttributesCount: 1 },
      ],
      links: [
        { traceId: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", spanId: "eeeeeeeeeeeeeeee", traceState: "a=b", flags: 1 },
        { attributes: [{ key: "k", value: { boolValue: true } }] },
      ],
    }) as { resourceSpans: unknown[] };
    request.resourceSpans.push(...request.resourceSpans, { resource: null, schemaUrl: "https://x" }, {});
    const batch = expectSameAsJavaScript(request);
    // The repeated entry and the empty resource merge with the first; the schema URL makes another.
    expect(batch.resources).to.have.length(2);
    expect(batch.fields).to.have.length(2 * 19);
  });

  it("accepts empty envelopes and unknown fields as zero spans", () => {
    for (const request of [
      {},
      { resourceSpans: [] },
      { resourceSpans: null, extra: [1, { x: 2 }] },
      { resourceSpans: [{ scopeSpans: [{ spans: [] }], unknown: true }] },
    ]) {
      expect(expectSameAsJavaScript(request).fields).to.deep.equal([]);
    }
  });

  it("names a missing service unknown_service", () => {
    const batch = expectSameAsJavaScript(
      spanRequest({}, { attributes: [{ key: "host", value: { stringValue: "h" } }] }),
    );
    expect(batch.resources[0]?.serviceName).to.equal("unknown_service");
  });

  it("declines invalid requests and rare shapes, which the JavaScript decoder then decides", () => {
    const declined: unknown[] = [
      "{",
      "\ufeff{}",
      '{"resourceSpans": []} x',
      spanRequest({ traceId: "0102" }),
      spanRequest({ traceId: "00000000000000000000000000000000" }),
      spanRequest({ spanId: "AQIDBAUGBwg=" }),
      spanRequest({ traceId: undefined }),
      spanRequest({ startTimeUnixNano: "-1" }),
      spanRequest({ startTimeUnixNano: "9223372036854775808" }),
      spanRequest({ kind: "constructor" }),
      spanRequest({ status: [] }),
      spanRequest({ name: 5 }),
      withAttributes([{ key: "big", value: { intValue: "9007199254740993" } }]),
      withAttributes([{ key: "two", value: { stringValue: "a", intValue: 1 } }]),
      withAttributes([{ key: "0", value: { stringValue: "index-like keys come first in JavaScript" } }]),
      withAttributes([
        { key: "k", value: { stringValue: "a" } },
        { key: "k", value: { stringValue: "b" } },
      ]),
      withAttributes([{ key: "d", value: { doubleValue: "1.5" } }]),
      // Past the largest double: simdjson refuses the number, JSON.parse reads it as an infinity.
      JSON.stringify(withAttributes([{ key: "d", value: { doubleValue: "X" } }])).replace('"X"', "1e400"),
      withAttributes([{ key: "b", value: { bytesValue: "not base64!" } }]),
      withAttributes([
        { key: "deep", value: JSON.parse(`${'{"arrayValue":{"values":['.repeat(40)}${"]}}".repeat(40)}`) },
      ]),
    ];
    for (const request of declined)
      expect(decodeTraceJsonNatively(body(request)), JSON.stringify(request)).to.equal(undefined);
    expect(decodeTraceJsonNatively(body('{"resourceSpans":[],"resourceSpans":null}'))).to.equal(undefined);
    expect(decodeTraceJsonNatively(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).to.equal(undefined);
  });

  it("agrees with the JavaScript decoder on random and mutated requests", () => {
    const random = seededRandom(5);
    for (let i = 0; i < 300; i++) {
      const attributes = Array.from({ length: Math.floor(random() * 6) }, (_, k) => ({
        key: `k${k}${randomText(random)}`,
        value: randomAnyValue(random, 3),
      }));
      expectSameAsJavaScript(withAttributes(attributes));
    }
    let taken = 0;
    for (const payload of fuzzPayloads(17, 3000)) {
      if (payload.signal !== "traces" || payload.format !== "json") continue;
      const native = decodeTraceJsonNatively(payload.body);
      if (native === undefined) continue;
      taken++;
      expect(native, payload.recipe).to.deep.equal(javaScriptDecoding(payload.body));
    }
    expect(taken).to.be.greaterThan(20);
  });
});
