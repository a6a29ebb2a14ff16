import { serialize } from "node:v8";
import { expect } from "chai";
import { decodeLogRequest, decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import {
  packedLogCount,
  packedSpanCount,
  packLogs,
  packSpans,
  unpackLogSlices,
  unpackSpanSlices,
} from "../../../daemon/store/packed-batch.js";
import { otlpFixture } from "../../helpers/fixtures.js";
import { hexId, type LogSpec, logsRequest, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";

const T0 = 1_700_000_000_000_000_000n;

/** Every record of a packed batch, in one slice (no test batch is this large). */
const ONE_SLICE = 100_000;

describe("packed batches", () => {
  it("give back exactly the spans they were packed from, and the spec's example", () => {
    const built = traceRequest("api", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0, attributes: { a: "x", b: 2 } },
      { traceId: hexId(1, 16), spanId: hexId(2, 8), parentSpanId: hexId(1, 8), startNs: T0 + 5n, attributes: {} },
      { traceId: hexId(2, 16), spanId: hexId(3, 8), startNs: T0, attributes: { b: 3, c: true } },
    ]);
    const everyField = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "web" } }] },
          scopeSpans: [
            {
              scope: { name: "s", version: "1" },
              spans: [
                {
                  traceId: hexId(9, 16),
                  spanId: hexId(9, 8),
                  traceState: "k=v",
                  flags: 1,
                  name: "op",
                  kind: 2,
                  startTimeUnixNano: "1700000000000000001",
                  endTimeUnixNano: "1700000000000000009",
                  status: { code: 2, message: "boom" },
                  events: [{ name: "e", timeUnixNano: "1700000000000000002" }],
                  links: [{ traceId: hexId(8, 16), spanId: hexId(8, 8) }],
                  droppedAttributesCount: 1,
                  droppedEventsCount: 2,
                  droppedLinksCount: 3,
                },
              ],
            },
          ],
        },
      ],
    };
    for (const batch of [
      decodeTraceRequest(Buffer.from(JSON.stringify(built)), "json"),
      decodeTraceRequest(Buffer.from(JSON.stringify(everyField)), "json"),
      decodeTraceRequest(Buffer.from(otlpFixture("trace")), "json"),
    ]) {
      const packed = packSpans(batch);
      expect(packedSpanCount(packed)).to.equal(batch.spans.length);
      expect([...unpackSpanSlices(packed, ONE_SLICE)]).to.deep.equal([batch]);
    }
  });

  it("give back exactly the log records they were packed from, and the spec's example", () => {
    const built = logsRequest("api", [
      { timeNs: T0, body: "hello", attributes: { a: "x" } },
      { timeNs: T0 + 1n, body: "world", severityNumber: 17 },
    ]);
    for (const batch of [
      decodeLogRequest(Buffer.from(JSON.stringify(built)), "json"),
      decodeLogRequest(Buffer.from(otlpFixture("logs")), "json"),
    ]) {
      const packed = packLogs(batch);
      expect(packedLogCount(packed)).to.equal(batch.logs.length);
      expect([...unpackLogSlices(packed, ONE_SLICE)]).to.deep.equal([batch]);
    }
  });

  it("carry each repeated text once per batch, and cross smaller than the records", () => {
    const spans = Array.from({ length: 50 }, (_, i) => ({
      traceId: hexId(Math.floor(i / 10) + 1, 16),
      spanId: hexId(i + 1, 8),
      ...(i % 10 > 0 ? { parentSpanId: hexId(Math.floor(i / 10) * 10 + 1, 8) } : {}),
      startNs: T0,
      name: i % 10 > 0 ? "SELECT" : "GET /r",
      attributes: { "http.request.method": "GET", "http.route": `/r/${i}` },
    }));
    const batch = decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", spans))), "json");
    const packed = packSpans(batch);
    const once = (text: string) => packed.strings.filter((s) => s === text).length;
    for (const text of ["http.request.method", "http.route", "GET", "SELECT", "GET /r", hexId(1, 16), hexId(1, 8)]) {
      expect(once(text), text).to.equal(1);
    }
    // 5 trace ids, 5 parent ids, 2 names, 2 keys, "GET" and the 50 routes.
    expect(packed.strings).to.have.length(5 + 5 + 2 + 2 + 1 + 50);
    expect(packed.indexed.every((entry) => typeof entry === "number")).to.equal(true);
    expect(serialize(packed).length).to.be.below(serialize(batch).length * 0.8);
    expect([...unpackSpanSlices(packed, ONE_SLICE)]).to.deep.equal([batch]);
  });

  it("give back the records in slices of the size asked for, in order, with their index entries", () => {
    const spans: SpanSpec[] = Array.from({ length: 7 }, (_, i) => ({
      traceId: hexId(i % 2, 16),
      spanId: hexId(i, 8),
      startNs: T0 + BigInt(i),
      attributes: (i % 3 === 0 ? {} : { "http.route": `/r/${i}`, n: i }) as SpanSpec["attributes"],
    }));
    const batch = decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", spans))), "json");
    expect(batch.spans.some((span) => span.indexed.length > 0)).to.equal(true);
    const slices = [...unpackSpanSlices(packSpans(batch), 3)];
    expect(slices.map((slice) => slice.spans.length)).to.deep.equal([3, 3, 1]);
    expect(slices.flatMap((slice) => slice.spans)).to.deep.equal(batch.spans);
    for (const slice of slices) expect(slice.resources).to.deep.equal(batch.resources);
    expect([...unpackSpanSlices(packSpans(batch), 7)]).to.deep.equal([batch]);

    const logs: LogSpec[] = Array.from({ length: 5 }, (_, i) => ({
      timeNs: T0 + BigInt(i),
      body: `line ${i}`,
      attributes: (i % 2 ? { "http.route": `/l/${i}` } : {}) as LogSpec["attributes"],
    }));
    const logBatch = decodeLogRequest(Buffer.from(JSON.stringify(logsRequest("api", logs))), "json");
    const logSlices = [...unpackLogSlices(packLogs(logBatch), 2)];
    expect(logSlices.map((slice) => slice.logs.length)).to.deep.equal([2, 2, 1]);
    expect(logSlices.flatMap((slice) => slice.logs)).to.deep.equal(logBatch.logs);
  });
});
