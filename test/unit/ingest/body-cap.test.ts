import { PassThrough, Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { capBuffer, contentEncodingOf, readCapped } from "../../../daemon/ingest/body-cap.js";
import { IngestError } from "../../../daemon/ingest/ingest-errors.js";

async function refusal(promise: Promise<unknown>): Promise<IngestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(IngestError);
    return error as IngestError;
  }
  throw new Error("expected a refusal");
}

function chunks(...parts: Buffer[]): Readable {
  return Readable.from(parts, { objectMode: false });
}

describe("the transport-neutral body cap", () => {
  it("names the encodings it reads, and refuses others as unsupported", () => {
    expect(contentEncodingOf(undefined)).to.equal("identity");
    expect(contentEncodingOf(" GZIP ")).to.equal("gzip");
    expect(contentEncodingOf("x-gzip")).to.equal("gzip");
    expect(() => contentEncodingOf("br"))
      .to.throw(IngestError, 'unsupported Content-Encoding "br": send gzip or no encoding')
      .with.property("kind", "unsupported-encoding");
  });

  it("reads a stream whole into a buffer of its own, plain or inflated", async () => {
    const plain = await readCapped(chunks(Buffer.from("ab"), Buffer.from("cd")), { maxBytes: 4, encoding: "identity" });
    expect(plain.toString()).to.equal("abcd");
    expect(plain.byteOffset).to.equal(0);
    expect(plain.buffer.byteLength).to.equal(4);
    const text = "x".repeat(1000);
    const inflated = await readCapped(chunks(gzipSync(text)), { maxBytes: 1000, encoding: "gzip" });
    expect(inflated.toString()).to.equal(text);
    expect((await capBuffer(gzipSync("hello"), "gzip", 100)).toString()).to.equal("hello");
  });

  it("refuses a body over the cap: declared, streamed, or once inflated", async () => {
    const declared = await refusal(
      readCapped(chunks(Buffer.alloc(1)), { maxBytes: 4, encoding: "identity", declaredBytes: 5 }),
    );
    expect([declared.kind, declared.message]).to.deep.equal([
      "too-large",
      "the request body is larger than the 4-byte limit",
    ]);
    const streamed = await refusal(
      readCapped(chunks(Buffer.alloc(3), Buffer.alloc(3)), { maxBytes: 4, encoding: "identity" }),
    );
    expect(streamed.kind).to.equal("too-large");
    const bomb = await refusal(capBuffer(gzipSync(Buffer.alloc(100_000)), "gzip", 1000));
    expect([bomb.kind, bomb.message]).to.deep.equal([
      "too-large",
      "the inflated request body is larger than the 1000-byte limit",
    ]);
  });

  it("refuses a body that is not gzip, or is cut off, as an invalid payload", async () => {
    const notGzip = await refusal(capBuffer(Buffer.from("plain text"), "gzip", 100));
    expect(notGzip.kind).to.equal("invalid-payload");
    expect(notGzip.message).to.match(/^invalid gzip body: /);
    const source = new PassThrough();
    const reading = readCapped(source, { maxBytes: 100, encoding: "identity" });
    source.write("part");
    source.destroy(new Error("reset"));
    const cut = await refusal(reading);
    expect([cut.kind, cut.message]).to.deep.equal(["invalid-payload", "the request body was cut off"]);
  });

  it("refuses an empty body declared gzip, saying so, and takes a gzip of nothing as an empty body", async () => {
    // As the OpenTelemetry Collector does: a gzip stream is never empty.
    const empty = await refusal(capBuffer(Buffer.alloc(0), "gzip", 100));
    expect([empty.kind, empty.message]).to.deep.equal([
      "invalid-payload",
      "invalid gzip body: the body is empty, and a gzip stream has at least a 20-byte header and trailer",
    ]);
    expect((await capBuffer(gzipSync(Buffer.alloc(0)), "gzip", 100)).length).to.equal(0);
    expect((await capBuffer(Buffer.alloc(0), "identity", 100)).length).to.equal(0);
  });

  it("keeps reading and discarding after a refusal, so the sender can finish and read the answer", async () => {
    const source = new PassThrough();
    let cutOff = false;
    const reading = readCapped(source, { maxBytes: 2, encoding: "identity", cutOff: () => (cutOff = true) });
    source.write(Buffer.alloc(3));
    await refusal(reading);
    source.end(Buffer.alloc(10));
    await new Promise((resolve) => source.on("end", resolve));
    expect(cutOff).to.equal(false);
  });
});
