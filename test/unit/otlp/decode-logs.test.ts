import { expect } from "chai";
import { decodeLogRequest } from "../../../daemon/otlp/decode-request.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import { otlpFixture, otlpFixtureObject } from "../../helpers/fixtures.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";

function decodeJson(body: unknown) {
  return decodeLogRequest(Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), "json");
}

function logRequest(record: Record<string, unknown>) {
  return { resourceLogs: [{ resource: {}, scopeLogs: [{ scope: {}, logRecords: [record] }] }] };
}

describe("OTLP log decoding", () => {
  it("decodes the OTLP specification's log example", () => {
    const batch = decodeJson(otlpFixture("logs"));
    expect(batch.logs).to.have.length(1);
    const log = batch.logs[0]!;
    expect(log.timeNs).to.equal(1544712660300000000n);
    expect(log.observedNs).to.equal(1544712660300000000n);
    expect(log.severityNumber).to.equal(10);
    expect(log.severityText).to.equal("Information");
    expect(log.traceId).to.equal("5b8efff798038103d269b633813fc60c");
    expect(log.spanId).to.equal("eee19b7ec3c1b174");
    expect(JSON.parse(log.body!)).to.equal("Example log record");
    expect(JSON.parse(log.attributes)).to.deep.equal({
      "string.attribute": "some string",
      "boolean.attribute": true,
      "int.attribute": 10,
      "double.attribute": 637.704,
      "array.attribute": ["many", "values"],
      "map.attribute": { "some.map.key": "some value" },
    });
    expect(batch.resources[log.resource]!.serviceName).to.equal("my.service");
  });

  it("keeps structured bodies and event names, and treats zero ids as absent", () => {
    const batch = decodeJson(
      logRequest({
        body: {
          kvlistValue: {
            values: [
              { key: "msg", value: { stringValue: "hi" } },
              { key: "n", value: { intValue: "3" } },
            ],
          },
        },
        eventName: "user.login",
        traceId: "00000000000000000000000000000000",
        spanId: "0000000000000000",
        severityNumber: "SEVERITY_NUMBER_WARN",
      }),
    );
    const log = batch.logs[0]!;
    expect(JSON.parse(log.body!)).to.deep.equal({ msg: "hi", n: 3 });
    expect(log.eventName).to.equal("user.login");
    expect(log.traceId).to.equal(null);
    expect(log.spanId).to.equal(null);
    expect(log.severityNumber).to.equal(13);
    expect(batch.resources[0]!.serviceName).to.equal("unknown_service");
  });

  it("gives identical records the same content hash and different records different ones", () => {
    const a = decodeJson(otlpFixture("logs")).logs[0]!;
    const b = decodeJson(otlpFixture("logs")).logs[0]!;
    const changed = otlpFixtureObject("logs");
    changed.resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue = "Another";
    const c = decodeJson(changed).logs[0]!;
    expect(Buffer.from(a.hash).equals(Buffer.from(b.hash))).to.equal(true);
    expect(Buffer.from(a.hash).equals(Buffer.from(c.hash))).to.equal(false);
    expect(a.hash).to.have.length(20);
  });

  it("refuses ids of the wrong length", () => {
    expect(() => decodeJson(logRequest({ traceId: "abc" }))).to.throw(PayloadError, /logRecords\[0\]\.traceId/);
  });

  it("decodes protobuf to exactly the records JSON gives", () => {
    const json = otlpFixtureObject("logs");
    const fromJson = decodeJson(json);
    const record = json.resourceLogs[0].scopeLogs[0].logRecords[0];
    const message = otlpTypes.logsRequest.fromObject({
      resourceLogs: [
        {
          resource: json.resourceLogs[0].resource,
          scopeLogs: [
            {
              scope: json.resourceLogs[0].scopeLogs[0].scope,
              logRecords: [
                { ...record, traceId: Buffer.from(record.traceId, "hex"), spanId: Buffer.from(record.spanId, "hex") },
              ],
            },
          ],
        },
      ],
    });
    const fromProtobuf = decodeLogRequest(Buffer.from(otlpTypes.logsRequest.encode(message).finish()), "protobuf");
    expect(fromProtobuf).to.deep.equal(fromJson);
  });
});
