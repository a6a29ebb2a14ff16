import { expect } from "chai";
import { HTTP2_PREFACE, prefaceVerdict } from "../../../daemon/grpc/http2-preface.js";

describe("HTTP/2 preface detection", () => {
  it("says HTTP/2 only for the whole 24-byte preface, with or without what follows", () => {
    expect(HTTP2_PREFACE.length).to.equal(24);
    expect(prefaceVerdict(HTTP2_PREFACE)).to.equal("http2");
    expect(prefaceVerdict(Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0, 18, 4])]))).to.equal("http2");
  });

  it("waits on every shorter read that is still a prefix, the empty one included", () => {
    for (let length = 0; length < 24; length++) {
      expect(prefaceVerdict(HTTP2_PREFACE.subarray(0, length)), `${length} bytes`).to.equal("undecided");
    }
  });

  it("says HTTP/1.1 at the first byte that differs", () => {
    expect(prefaceVerdict(Buffer.from("POST /v1/traces HTTP/1.1\r\n"))).to.equal("http1");
    expect(prefaceVerdict(Buffer.from("G"))).to.equal("http1");
    expect(prefaceVerdict(Buffer.from("PRI * HTTP/1.1"))).to.equal("http1");
    expect(prefaceVerdict(Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\r"))).to.equal("http1");
  });
});
