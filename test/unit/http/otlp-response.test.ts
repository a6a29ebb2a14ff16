import { ProtobufLogsSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { expect } from "chai";
import { dualAcceptedBody, jsonAcceptedBody } from "../../../daemon/http/otlp-response.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";

describe("OTLP success bodies", () => {
  for (const accepted of [0, 1, 512, 123456789, Number.MAX_SAFE_INTEGER]) {
    it(`answers ${accepted} as JSON that is also an empty protobuf response`, () => {
      const body = dualAcceptedBody(accepted);
      expect(JSON.parse(body.toString("latin1"))).to.deep.equal({ accepted });
      for (const type of [otlpTypes.traceResponse, otlpTypes.logsResponse]) {
        const decoded = type.toObject(type.decode(body));
        expect(decoded).to.deep.equal({}); // no partial_success: everything was accepted
      }
      // The OpenTelemetry JS exporters' own response decoders.
      expect(ProtobufTraceSerializer.deserializeResponse(new Uint8Array(body))).to.deep.equal({});
      expect(ProtobufLogsSerializer.deserializeResponse(new Uint8Array(body))).to.deep.equal({});
    });
  }

  it("answers JSON requests with plain compact JSON", () => {
    expect(jsonAcceptedBody(3).toString()).to.equal('{"accepted":3}');
  });
});
