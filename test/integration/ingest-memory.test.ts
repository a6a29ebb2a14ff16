import { expect } from "chai";
import { COLLECTOR_BATCH_SPANS, collectorBatch, collectorBatchProtobuf } from "../helpers/collector-batch.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { hostileBody } from "../helpers/hostile-payloads.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";

const NOW = BigInt(Date.now()) * 1_000_000n;

function postProtobuf(url: string, body: Buffer) {
  return http(url, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
}

describe("requests that decode to more than one body may cost (real obsd)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  it("refuses a span of a million one-byte attributes with 413, and stores nothing of it", async () => {
    const body = hostileBody("traces", { records: 1, attributes: 1_000_000 }, NOW);
    expect(body.length).to.be.lessThan(16 * 1024 * 1024);
    const res = await postProtobuf(`${obsd.url}/v1/traces`, body);
    expect(res.status).to.equal(413);
    expect(res.json().error).to.match(/decodes to more than \d+ records, attributes and values/);
    // The allowance grows with the body cap: the answer names the flag that raises it.
    expect(res.json().error).to.include("--max-body-size");
    const { counts } = (await http(`${obsd.url}/api/health`)).json();
    expect(counts.spans).to.equal(0);
  });

  it("refuses a log record of a million attributes, and a three-million-item array, with 413", async () => {
    const log = await postProtobuf(
      `${obsd.url}/v1/logs`,
      hostileBody("logs", { records: 1, attributes: 1_000_000 }, NOW),
    );
    expect(log.status).to.equal(413);
    const array = hostileBody("traces", { records: 1, attributes: 0, arrayItems: 3_000_000 }, NOW);
    expect((await postProtobuf(`${obsd.url}/v1/traces`, array)).status).to.equal(413);
  });

  it("refuses the same in OTLP/JSON with 413", async () => {
    const attributes = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`a${i}`, "x"]));
    const request = traceRequest("wide-json", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: NOW, attributes },
    ]);
    const res = await postJson(`${obsd.url}/v1/traces`, request);
    expect(res.status).to.equal(413);
    // Millions of empty array values are three bytes each in JSON, parsed whole by either decoder.
    const list = traceRequest("array-json", [
      { traceId: hexId(2, 16), spanId: hexId(1, 8), startNs: NOW, attributes: { list: "PLACEHOLDER" } },
    ]);
    const text = JSON.stringify(list).replace(
      '{"stringValue":"PLACEHOLDER"}',
      `{"arrayValue":{"values":[${"{},".repeat(4_999_999)}{}]}}`,
    );
    expect((await postJson(`${obsd.url}/v1/traces`, text)).status).to.equal(413);
  });

  it("accepts and stores an OpenTelemetry Collector's default batch (8,192 spans of 15 attributes), protobuf and JSON", async () => {
    const spansStored = async () => (await http(`${obsd.url}/api/health`)).json().counts.spans as number;
    const before = await spansStored();
    const protobufAnswer = await postProtobuf(
      `${obsd.url}/v1/traces`,
      collectorBatchProtobuf(COLLECTOR_BATCH_SPANS, 15, NOW, 1),
    );
    expect(protobufAnswer.status, protobufAnswer.body.toString()).to.equal(200);
    const jsonAnswer = await postJson(`${obsd.url}/v1/traces`, collectorBatch(COLLECTOR_BATCH_SPANS, 15, NOW, 2));
    expect(jsonAnswer.status, jsonAnswer.body.toString()).to.equal(200);
    // Thirty attributes on half as many spans: wider spans, as an instrumented framework's are.
    const wide = await postProtobuf(`${obsd.url}/v1/traces`, collectorBatchProtobuf(4_096, 30, NOW, 3));
    expect(wide.status, wide.body.toString()).to.equal(200);
    expect((await spansStored()) - before).to.equal(2 * COLLECTOR_BATCH_SPANS + 4_096);
  });

  it("still stores ordinary requests, several at once, after refusing those", async () => {
    const hostile = [0, 1, 2].map((i) =>
      postProtobuf(`${obsd.url}/v1/traces`, hostileBody("traces", { records: 1, attributes: 1_000_000 }, NOW, 10 + i)),
    );
    const ordinary = Array.from({ length: 8 }, (_, b) =>
      postJson(
        `${obsd.url}/v1/traces`,
        traceRequest(
          "ordinary",
          Array.from({ length: 500 }, (_, i) => ({
            traceId: hexId(100 + b, 16),
            spanId: hexId(i, 8),
            startNs: NOW,
            attributes: { "http.route": `/r/${i % 7}`, "http.status_code": 200 },
          })),
        ),
      ),
    );
    const answers = await Promise.all([...hostile, ...ordinary]);
    expect(answers.map((res) => res.status)).to.deep.equal([413, 413, 413, ...ordinary.map(() => 200)]);
    expect(answers.slice(3).map((res) => res.json().accepted)).to.deep.equal(ordinary.map(() => 500));
  });
});
