import { expect } from "chai";
import protobuf from "protobufjs";
import { encodeGrpcMessage, statusTrailers } from "../../../daemon/grpc/grpc-status.js";

/** The fields of a protobuf message, by number (length-delimited ones as bytes, varints as numbers). */
function fields(bytes: Uint8Array): Map<number, Uint8Array | number> {
  const reader = protobuf.Reader.create(bytes);
  const found = new Map<number, Uint8Array | number>();
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    found.set(tag >>> 3, (tag & 7) === 2 ? reader.bytes() : Number(reader.int64()));
  }
  return found;
}

describe("gRPC status trailers", () => {
  it("carry the code, and the message percent-encoded outside printable ASCII and for %", () => {
    expect(statusTrailers({ code: 0, message: "", retryDelaySeconds: null })).to.deep.equal({ "grpc-status": "0" });
    expect(encodeGrpcMessage('invalid "payload": 100% ü\n')).to.equal('invalid "payload": 100%25 %C3%BC%0A');
    expect(statusTrailers({ code: 3, message: "bad", retryDelaySeconds: null })).to.deep.equal({
      "grpc-status": "3",
      "grpc-message": "bad",
    });
  });

  it("carry a retry delay as google.rpc.Status with a google.rpc.RetryInfo detail", () => {
    const trailers = statusTrailers({ code: 14, message: "store unavailable", retryDelaySeconds: 1 });
    expect(trailers["grpc-status"]).to.equal("14");
    const status = fields(Buffer.from(trailers["grpc-status-details-bin"] as string, "base64"));
    expect(status.get(1)).to.equal(14);
    expect(Buffer.from(status.get(2) as Uint8Array).toString()).to.equal("store unavailable");
    const any = fields(status.get(3) as Uint8Array);
    expect(Buffer.from(any.get(1) as Uint8Array).toString()).to.equal("type.googleapis.com/google.rpc.RetryInfo");
    const retryDelay = fields(fields(any.get(2) as Uint8Array).get(1) as Uint8Array);
    expect(retryDelay.get(1)).to.equal(1);
  });
});
