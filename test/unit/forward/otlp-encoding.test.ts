import { expect } from "chai";
import { combine, jsonToProtobuf, protobufToJson } from "../../../daemon/forward/otlp-encoding.js";
import { OUTBOX_FORMAT } from "../../../daemon/store/forward-outbox.js";
import { logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";

const TRACE_ID = "5b8efff798038103d269b633813fc60c";
const SPAN_ID = "eee19b7ec3c1b174";
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

const trace = (name: string) =>
  traceRequest("checkout", [
    {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      parentSpanId: "0000000000000001",
      name,
      startNs: 1_700_000_000_000_000_000n,
      attributes: { n: 42, ok: true },
    },
  ]);

describe("forwarding encodings", () => {
  it("turns OTLP/JSON into protobuf that protobufjs reads back with the same ids, times and attributes", () => {
    const bytes = jsonToProtobuf("traces", json(trace("GET /cart")));
    const decoded = otlpTypes.traceRequest.toObject(otlpTypes.traceRequest.decode(bytes), {
      longs: String,
      bytes: String,
    }) as any;
    const span = decoded.resourceSpans[0].scopeSpans[0].spans[0];
    expect(Buffer.from(span.traceId, "base64").toString("hex")).to.equal(TRACE_ID);
    expect(Buffer.from(span.spanId, "base64").toString("hex")).to.equal(SPAN_ID);
    expect(Buffer.from(span.parentSpanId, "base64").toString("hex")).to.equal("0000000000000001");
    expect(span.startTimeUnixNano).to.equal("1700000000000000000");
    expect(span.name).to.equal("GET /cart");
    expect(span.attributes).to.deep.include({ key: "n", value: { intValue: "42" } });
  });

  it("turns protobuf into OTLP/JSON with hex ids, as the OTLP/JSON encoding requires", () => {
    const object = protobufToJson(
      "logs",
      jsonToProtobuf(
        "logs",
        json(logsRequest("svc", [{ timeNs: 5n, body: "hi", traceId: TRACE_ID, spanId: SPAN_ID }])),
      ),
    );
    const record = (object as any).resourceLogs[0].scopeLogs[0].logRecords[0];
    expect(record).to.include({ traceId: TRACE_ID, spanId: SPAN_ID, timeUnixNano: "5", severityNumber: 9 });
    expect(record.body).to.deep.equal({ stringValue: "hi" });
  });

  it("joins several requests of a signal into one: protobuf bytes concatenated, JSON arrays merged, either source", () => {
    const a = { format: OUTBOX_FORMAT.json, body: json(trace("a")) };
    const b = { format: OUTBOX_FORMAT.protobuf, body: jsonToProtobuf("traces", json(trace("b"))) };
    const names = (request: any) =>
      request.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name)));
    const protobuf = combine("traces", "http/protobuf", [a, b]);
    expect(names(otlpTypes.traceRequest.toObject(otlpTypes.traceRequest.decode(protobuf)))).to.deep.equal(["a", "b"]);
    expect(combine("traces", "grpc", [a, b]).equals(protobuf)).to.equal(true);
    const merged = JSON.parse(combine("traces", "http/json", [a, b]).toString());
    expect(names(merged)).to.deep.equal(["a", "b"]);
    expect(merged.resourceSpans[1].scopeSpans[0].spans[0].traceId).to.equal(TRACE_ID);
  });

  it("reads base64 ids, keeps 64-bit times exact and non-finite doubles, as obs's own decoder does", () => {
    const request = trace("exact") as any;
    const span = request.resourceSpans[0].scopeSpans[0].spans[0];
    span.traceId = Buffer.from(TRACE_ID, "hex").toString("base64");
    const text = JSON.stringify(request).replace('"1700000000000000000"', "1700000000123456789");
    const bytes = jsonToProtobuf("traces", Buffer.from(text));
    const back = protobufToJson("traces", bytes) as any;
    const out = back.resourceSpans[0].scopeSpans[0].spans[0];
    expect(out.traceId).to.equal(TRACE_ID);
    expect(out.startTimeUnixNano).to.equal("1700000000123456789");
    const gauge = {
      resourceMetrics: [
        {
          scopeMetrics: [{ metrics: [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: "1", asDouble: "NaN" }] } }] }],
        },
      ],
    };
    const metrics = protobufToJson("metrics", jsonToProtobuf("metrics", json(gauge))) as any;
    expect(metrics.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asDouble).to.equal("NaN");
    const viaJson = JSON.parse(
      combine("traces", "http/json", [{ format: OUTBOX_FORMAT.json, body: Buffer.from(text) }]).toString(),
    );
    expect(viaJson.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano).to.equal("1700000000123456789");
  });

  it("refuses a stored body that is not an OTLP/JSON object", () => {
    expect(() => combine("traces", "http/protobuf", [{ format: OUTBOX_FORMAT.json, body: json([1, 2]) }])).to.throw(
      /not an object/,
    );
  });
});
