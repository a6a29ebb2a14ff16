import { readFileSync } from "node:fs";
import { DiagLogLevel, diag } from "@opentelemetry/api";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Ajv } from "ajv";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { otlpFixture } from "../helpers/fixtures.js";
import { protobufOf } from "../helpers/fuzz-payloads.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { otlpTypes } from "../helpers/otlp-protobuf.js";

const NOW = BigInt(Date.now()) * 1_000_000n;
const DAY_NS = 86_400_000_000_000n;

interface Counts {
  spans: number;
  logs: number;
}

async function counts(url: string): Promise<Counts> {
  return (await http(`${url}/api/health`)).json().counts;
}

function postProtobuf(url: string, body: Uint8Array) {
  return http(url, {
    method: "POST",
    headers: { "content-type": "application/x-protobuf" },
    body: Buffer.from(body),
  });
}

describe("what an export's answer counts (real obsd, default 7-day retention)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  it("answers the spec's 2018 samples with a partial success naming --retention, and stores nothing", async () => {
    const before = await counts(obsd.url);
    const traces = (await postJson(`${obsd.url}/v1/traces`, otlpFixture("trace"))).json();
    expect(traces.accepted).to.equal(0);
    expect(traces.partialSuccess.rejectedSpans).to.equal(1);
    expect(traces.partialSuccess.errorMessage).to.match(/older than the retention window/);
    expect(traces.partialSuccess.errorMessage).to.include("--retention");
    const logs = (await postJson(`${obsd.url}/v1/logs`, otlpFixture("logs"))).json();
    expect(logs.accepted).to.equal(0);
    expect(logs.partialSuccess.rejectedLogRecords).to.equal(1);
    expect(logs.partialSuccess.errorMessage).to.include("--retention");
    expect(await counts(obsd.url)).to.deep.include({ spans: before.spans, logs: before.logs });
    // Both answers are what the published schema describes.
    const schema = JSON.parse(readFileSync(packagePath("schemas", "api", "accepted.json"), "utf8"));
    const validate = new Ajv({ strict: false }).compile(schema);
    for (const answer of [traces, logs]) expect(validate(answer), JSON.stringify(validate.errors)).to.equal(true);
  });

  it("keeps the current records of a mixed request and counts only those as accepted", async () => {
    const before = await counts(obsd.url);
    const old = NOW - 8n * DAY_NS;
    const traces = traceRequest("mixed-age", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: NOW },
      { traceId: hexId(1, 16), spanId: hexId(2, 8), startNs: old },
      { traceId: hexId(2, 16), spanId: hexId(3, 8), startNs: old },
    ]);
    const answer = (await postJson(`${obsd.url}/v1/traces`, traces)).json();
    expect(answer).to.deep.include({ accepted: 1 });
    expect(answer.partialSuccess.rejectedSpans).to.equal(2);
    const logs = logsRequest("mixed-age", [
      { timeNs: NOW, body: "now" },
      { timeNs: old, body: "last week" },
    ]);
    const logAnswer = (await postJson(`${obsd.url}/v1/logs`, logs)).json();
    expect(logAnswer).to.deep.include({ accepted: 1 });
    expect(logAnswer.partialSuccess.rejectedLogRecords).to.equal(1);
    const after = await counts(obsd.url);
    expect([after.spans - before.spans, after.logs - before.logs]).to.deep.equal([1, 1]);
    // A request with nothing too old has no partialSuccess at all.
    const fresh = traceRequest("mixed-age", [{ traceId: hexId(3, 16), spanId: hexId(4, 8), startNs: NOW }]);
    expect((await postJson(`${obsd.url}/v1/traces`, fresh)).json()).to.deep.equal({ accepted: 1 });
  });

  it("puts the rejected counts in the protobuf response message's partial_success", async () => {
    const old = NOW - 30n * DAY_NS;
    const request = protobufOf(
      "traces",
      traceRequest("proto-old", [
        { traceId: hexId(10, 16), spanId: hexId(1, 8), startNs: old },
        { traceId: hexId(10, 16), spanId: hexId(2, 8), startNs: NOW },
      ]),
    );
    const res = await postProtobuf(`${obsd.url}/v1/traces`, request);
    expect(res.status).to.equal(200);
    expect(res.headers["content-type"]).to.match(/application\/x-protobuf/);
    const message = otlpTypes.traceResponse.toObject(otlpTypes.traceResponse.decode(res.body), { longs: Number });
    expect(message.partialSuccess.rejectedSpans).to.equal(1);
    expect(message.partialSuccess.errorMessage).to.include("--retention");

    const logs = protobufOf("logs", logsRequest("proto-old", [{ timeNs: old, body: "old" }]));
    const logRes = await postProtobuf(`${obsd.url}/v1/logs`, logs);
    const logMessage = otlpTypes.logsResponse.toObject(otlpTypes.logsResponse.decode(logRes.body), { longs: Number });
    expect(logMessage.partialSuccess.rejectedLogRecords).to.equal(1);
  });

  it("shows the OpenTelemetry JS protobuf exporter a partial success for a span older than retention", async () => {
    const warnings: string[] = [];
    diag.setLogger(
      {
        error: (...args) => warnings.push(args.map(String).join(" ")),
        warn: (...args) => warnings.push(args.map(String).join(" ")),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
    try {
      const provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new ProtoTraceExporter({ url: `${obsd.url}/v1/traces` }))],
      });
      const span = provider.getTracer("old").startSpan("from 2018", { startTime: new Date("2018-12-13T14:51:00Z") });
      span.end(new Date("2018-12-13T14:51:01Z"));
      await provider.forceFlush();
      await provider.shutdown();
    } finally {
      diag.disable();
    }
    const partial = warnings.find((line) => line.includes("Partial Success"));
    expect(partial, warnings.join("\n")).to.be.a("string");
    expect(partial).to.match(/"rejectedSpans":"?1"?[,}]/);
    expect(partial).to.include("--retention");
  });

  it("says in the collector's log that old records were rejected, once for many requests", async () => {
    for (let i = 0; i < 5; i++) await postJson(`${obsd.url}/v1/traces`, otlpFixture("trace"));
    const lines = obsd
      .output()
      .split("\n")
      .filter((line) => /older than the retention window/.test(line));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include("--retention");
  });

  it("answers duplicate span ids within one request with the number stored", async () => {
    const before = await counts(obsd.url);
    const span = { traceId: hexId(20, 16), spanId: hexId(1, 8), startNs: NOW };
    const request = traceRequest("dup-ids", [span, { ...span, name: "second copy" }]);
    expect((await postJson(`${obsd.url}/v1/traces`, request)).json()).to.deep.equal({ accepted: 1 });
    // Resending it counts what is already there.
    expect((await postJson(`${obsd.url}/v1/traces`, request)).json()).to.deep.equal({ accepted: 1 });
    const log = { timeNs: NOW, body: "twice in one request" };
    expect((await postJson(`${obsd.url}/v1/logs`, logsRequest("dup-ids", [log, log]))).json()).to.deep.equal({
      accepted: 1,
    });
    const after = await counts(obsd.url);
    expect([after.spans - before.spans, after.logs - before.logs]).to.deep.equal([1, 1]);
  });

  it("counts a span repeated across the writer's slices of a large request once", async () => {
    const spans = Array.from({ length: 5000 }, (_, i) => ({
      traceId: hexId(30, 16),
      spanId: hexId(i, 8),
      startNs: NOW,
    }));
    // The copy comes after the writer's first 4,096-record slice.
    spans.push({ ...spans[0]! });
    const answer = (await postJson(`${obsd.url}/v1/traces`, traceRequest("dup-slices", spans))).json();
    expect(answer).to.deep.equal({ accepted: 5000 });
  });
});

describe("the collector's log line about rejected old records (real obsd)", function () {
  this.timeout(30_000);

  it("says the rejections counted after its last line when it stops, not only when another comes", async () => {
    const obsd = await startCollectorProcess();
    try {
      // The fixture's spans are from 2018: each request's are all rejected.
      for (let i = 0; i < 3; i++) await postJson(`${obsd.url}/v1/traces`, otlpFixture("trace"));
    } finally {
      expect(await obsd.stop()).to.equal(0);
    }
    const lines = obsd
      .output()
      .split("\n")
      .filter((line) => /older than the retention window/.test(line));
    // The first request's span is said at once; the next two, within the minute, as obsd stops.
    expect(lines, obsd.output()).to.have.length(2);
    expect(lines[0]).to.match(/rejected 1 span older/);
    expect(lines[1]).to.match(/rejected 2 spans since \d{4}-\S+ older/);
  });
});
