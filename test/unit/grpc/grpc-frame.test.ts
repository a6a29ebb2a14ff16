import { expect } from "chai";
import { frameMessage, UnaryMessageReader } from "../../../daemon/grpc/grpc-frame.js";
import { IngestError } from "../../../daemon/ingest/ingest-errors.js";

function failure(run: () => unknown): IngestError {
  try {
    run();
  } catch (error) {
    if (error instanceof IngestError) return error;
    throw error;
  }
  throw new Error("did not fail");
}

describe("gRPC length-prefixed messages", () => {
  it("frame a message with a zero flag and its big-endian length", () => {
    expect([...frameMessage(Buffer.from("abc"))]).to.deep.equal([0, 0, 0, 0, 3, 97, 98, 99]);
    expect([...frameMessage(Buffer.alloc(0))]).to.deep.equal([0, 0, 0, 0, 0]);
  });

  it("read one message back, whatever the chunks it arrives in, with its compressed flag", () => {
    const framed = frameMessage(Buffer.from("hello world"));
    for (let split = 0; split <= framed.length; split++) {
      const reader = new UnaryMessageReader(100);
      reader.push(framed.subarray(0, split));
      reader.push(framed.subarray(split));
      expect(reader.finish()).to.deep.equal({ compressed: false, message: Buffer.from("hello world") });
    }
    const compressed = Buffer.from(frameMessage(Buffer.from("z")));
    compressed[0] = 1;
    const reader = new UnaryMessageReader(100);
    reader.push(compressed);
    expect(reader.finish().compressed).to.equal(true);
  });

  it("refuse a message whose declared length is over the cap as soon as the length arrives", () => {
    const reader = new UnaryMessageReader(10);
    const header = frameMessage(Buffer.alloc(11)).subarray(0, 5);
    expect(failure(() => reader.push(header)).kind).to.equal("too-large");
    const atCap = new UnaryMessageReader(10);
    atCap.push(frameMessage(Buffer.alloc(10)));
    expect(atCap.finish().message.length).to.equal(10);
  });

  it("refuse a stream with no message, a cut-off message, a second message or a bad flag", () => {
    expect(failure(() => new UnaryMessageReader(100).finish()).kind).to.equal("invalid-payload");
    const cut = new UnaryMessageReader(100);
    cut.push(frameMessage(Buffer.from("hello")).subarray(0, 7));
    expect(failure(() => cut.finish()).message).to.match(/cut off/);
    const two = new UnaryMessageReader(100);
    two.push(frameMessage(Buffer.from("a")));
    expect(failure(() => two.push(frameMessage(Buffer.from("b")))).message).to.match(/one message/);
    const flag = Buffer.from(frameMessage(Buffer.from("a")));
    flag[0] = 2;
    expect(failure(() => new UnaryMessageReader(100).push(flag)).kind).to.equal("invalid-payload");
  });
});
