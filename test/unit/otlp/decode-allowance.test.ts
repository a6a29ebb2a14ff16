import { expect } from "chai";
import {
  countJsonObjects,
  decodeWithin,
  RECORD_UNITS,
  TooManyValuesError,
} from "../../../daemon/otlp/decode-allowance.js";
import { decodeLogRequest, decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { hostileBody } from "../../helpers/hostile-payloads.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";

const NOW = 1_700_000_000_000_000_000n;

describe("decode allowance", () => {
  it("counts a request's records (three each), attributes and array items", () => {
    const body = hostileBody("traces", { records: 3, attributes: 4, arrayItems: 5 }, NOW);
    const { result, values } = decodeWithin(1000, () => decodeTraceRequest(body, "protobuf"));
    expect(result.spans).to.have.length(3);
    // Per span: 3 for the record, 4 attributes, the array attribute and its 5 items; and the
    // resource's service.name.
    expect(RECORD_UNITS).to.equal(3);
    expect(values).to.equal(3 * (3 + 4 + 1 + 5) + 1);
  });

  it("stops a protobuf decode past the allowance with TooManyValuesError, not a payload error", () => {
    const body = hostileBody("logs", { records: 1, attributes: 10_000 }, NOW);
    expect(() => decodeWithin(5_000, () => decodeLogRequest(body, "protobuf")))
      .to.throw(TooManyValuesError)
      .with.property("limit", 5_000);
  });

  it("counts OTLP/JSON the same way", () => {
    const request = traceRequest("json", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: NOW, attributes: { a: "x", b: 1 } },
    ]);
    const body = Buffer.from(JSON.stringify(request));
    expect(decodeWithin(1000, () => decodeTraceRequest(body, "json")).values).to.equal(3 + 2 + 1);
    expect(() => decodeWithin(3, () => decodeTraceRequest(body, "json"))).to.throw(TooManyValuesError);
  });

  it("charges nothing against a limit outside an allowance", () => {
    const body = hostileBody("traces", { records: 1, attributes: 10_000 }, NOW);
    expect(decodeTraceRequest(body, "protobuf").spans).to.have.length(1);
  });
});

describe("JSON object count", () => {
  it("counts objects outside strings, braces in strings and escapes aside", () => {
    const text = '{"a":[{},{}],"b":"{\\"{","c":{"d":"}{"}}';
    expect(countJsonObjects(Buffer.from(text), 100)).to.equal(4);
  });

  it("stops counting just past the bound", () => {
    expect(countJsonObjects(Buffer.from("[{},{},{},{},{}]"), 2)).to.equal(3);
  });
});

describe("decode allowance, JSON read again losslessly", () => {
  it("charges a request whose integers need the lossless parse once, not twice", () => {
    const request = traceRequest("big-int", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: NOW, attributes: { a: "x", b: "y" } },
    ]);
    // An intValue past 2^53 as a bare number sends the decoder back to a lossless parse.
    const text = JSON.stringify(request).replace('{"stringValue":"y"}', '{"intValue":9007199254740993}');
    const { values } = decodeWithin(1000, () => decodeTraceRequest(Buffer.from(text), "json"));
    expect(values).to.equal(3 + 2 + 1);
  });
});
