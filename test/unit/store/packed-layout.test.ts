import { expect } from "chai";
import { decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { decodeTraceJsonNatively, nativeJsonDecoderLoaded } from "../../../daemon/otlp/native-json-traces.js";
import {
  LOG_CODEC,
  LOG_LAYOUT,
  packSpans,
  SPAN_CODEC,
  SPAN_FIELDS,
  SPAN_LAYOUT,
} from "../../../daemon/store/packed-batch.js";
import { recordCodec, StringTable } from "../../../daemon/store/packed-layout.js";

/** A span whose every field holds a value no other field holds, so a column read from the wrong offset shows. */
const DISTINCT = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [
        {
          scope: { name: "scope-a" },
          spans: [
            {
              traceId: "0102030405060708090a0b0c0d0e0f10",
              spanId: "1112131415161718",
              name: "the-name",
              startTimeUnixNano: "1700000000000000001",
              endTimeUnixNano: "1700000000000000002",
            },
          ],
        },
      ],
    },
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "other" } }] },
      scopeSpans: [
        { scope: { name: "scope-b" } },
        {
          scope: { name: "scope-c" },
          spans: [
            {
              traceId: "2122232425262728292a2b2c2d2e2f30",
              spanId: "3132333435363738",
              parentSpanId: "4142434445464748",
              traceState: "k=state",
              flags: 257,
              name: "child-name",
              kind: 3,
              startTimeUnixNano: "1700000000000000010",
              endTimeUnixNano: "1700000000000000020",
              status: { code: 2, message: "the-status" },
              attributes: [{ key: "http.route", value: { stringValue: "/route" } }],
              events: [{ name: "an-event", timeUnixNano: "1700000000000000011" }],
              links: [{ traceId: "5152535455565758595a5b5c5d5e5f60", spanId: "6162636465666768" }],
              droppedAttributesCount: 4,
              droppedEventsCount: 5,
              droppedLinksCount: 6,
            },
          ],
        },
      ],
    },
  ],
};

describe("packed layouts", () => {
  it("give each column one offset, in table order, and the width of the table", () => {
    expect(SPAN_FIELDS).to.equal(SPAN_LAYOUT.length);
    for (const [i, column] of SPAN_LAYOUT.entries()) expect(SPAN_CODEC.at[column.field], column.field).to.equal(i);
    expect(LOG_CODEC.width).to.equal(LOG_LAYOUT.length);
    for (const [i, column] of LOG_LAYOUT.entries()) expect(LOG_CODEC.at[column.field], column.field).to.equal(i);
  });

  it("pack each field at its column's offset, texts through the string table", () => {
    const batch = decodeTraceRequest(Buffer.from(JSON.stringify(DISTINCT)), "json");
    const packed = packSpans(batch);
    expect(packed.fields).to.have.length(batch.spans.length * SPAN_FIELDS);
    batch.spans.forEach((span, i) => {
      for (const { field, crossing } of SPAN_LAYOUT) {
        const at = packed.fields[i * SPAN_FIELDS + SPAN_CODEC.at[field]];
        const value = crossing === "value" ? at : (at as number) < 0 ? null : packed.strings[at as number];
        expect(value, `span ${i}, ${field}`).to.deep.equal(span[field]);
      }
    });
  });

  it("refuse a layout with a repeated or unusable field name", () => {
    type Two = { a: number; b: string; indexed: string[] };
    expect(() =>
      recordCodec<Two, readonly [{ field: "a"; crossing: "value" }, { field: "a"; crossing: "value" }]>([
        { field: "a", crossing: "value" },
        { field: "a", crossing: "value" },
      ]),
    ).to.throw(/repeated field "a"/);
    const codec = recordCodec<Two, readonly [{ field: "b"; crossing: "text" }, { field: "a"; crossing: "value" }]>([
      { field: "b", crossing: "text" },
      { field: "a", crossing: "value" },
    ]);
    const table = new StringTable();
    const fields: unknown[] = [];
    codec.pack({ a: 1, b: "x", indexed: [] }, table, fields);
    expect(fields).to.deep.equal([0, 1]);
    expect(table.strings).to.deep.equal(["x"]);
    expect(codec.build(fields, 0, table.strings, [])).to.deep.equal({ a: 1, b: "x", indexed: [] });
  });

  // The C++ decoder writes the span columns itself: the same count per span, each column
  // meaning what the TypeScript packer's does, on a span of distinct values and a bare one.
  it("match the native OTLP/JSON decoder's, column by column", () => {
    expect(nativeJsonDecoderLoaded, "the native decoder is built by npm install").to.equal(true);
    const bytes = Buffer.from(JSON.stringify(DISTINCT));
    const native = decodeTraceJsonNatively(bytes);
    expect(native, "the native decoder declined the sample").not.to.equal(undefined);
    if (native === undefined) return;
    const reference = packSpans(decodeTraceRequest(bytes, "json"));
    expect(native.fields).to.have.length(2 * SPAN_FIELDS);
    expect(native.fields.length).to.equal(reference.fields.length);
    const text = (batch: typeof native, at: unknown) => ((at as number) < 0 ? null : batch.strings[at as number]);
    for (let span = 0; span < 2; span++) {
      for (const { field, crossing } of SPAN_LAYOUT) {
        const o = span * SPAN_FIELDS + SPAN_CODEC.at[field];
        const [mine, theirs] = [native.fields[o], reference.fields[o]];
        const meaning = (value: unknown, batch: typeof native) => (crossing === "value" ? value : text(batch, value));
        expect(meaning(mine, native), `span ${span}, column ${field}`).to.deep.equal(meaning(theirs, reference));
      }
    }
  });
});
