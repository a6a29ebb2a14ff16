import { expect } from "chai";
import {
  GRPC_CODES,
  IngestError,
  type IngestErrorKind,
  ingestErrorOf,
  toGrpc,
  toHttp,
} from "../../../daemon/ingest/ingest-errors.js";
import { TooManyValuesError } from "../../../daemon/otlp/decode-allowance.js";
import { PayloadError } from "../../../daemon/otlp/payload-error.js";
import { StorageError, StoreLostError, StoreUnavailableError } from "../../../daemon/store/store-errors.js";

/** Per kind: the HTTP status obsd has always answered, the OTLP spec's gRPC code, and whether a client retries. */
const EXPECTED: Record<IngestErrorKind, { status: number; grpc: number; name: string; retryable: boolean }> = {
  "invalid-payload": { status: 400, grpc: 3, name: "INVALID_ARGUMENT", retryable: false },
  "too-large": { status: 413, grpc: 8, name: "RESOURCE_EXHAUSTED", retryable: false },
  "too-many-values": { status: 413, grpc: 8, name: "RESOURCE_EXHAUSTED", retryable: false },
  "unsupported-media-type": { status: 415, grpc: 12, name: "UNIMPLEMENTED", retryable: false },
  "unsupported-encoding": { status: 415, grpc: 12, name: "UNIMPLEMENTED", retryable: false },
  "store-unavailable": { status: 503, grpc: 14, name: "UNAVAILABLE", retryable: true },
  "store-failure": { status: 500, grpc: 13, name: "INTERNAL", retryable: false },
};

describe("ingest errors", () => {
  for (const [kind, expected] of Object.entries(EXPECTED) as [IngestErrorKind, (typeof EXPECTED)[IngestErrorKind]][]) {
    it(`render ${kind} as HTTP ${expected.status} and gRPC ${expected.name}`, () => {
      const error = new IngestError(kind, `why ${kind}`);
      expect(error.retryable).to.equal(expected.retryable);
      expect(toHttp(error)).to.deep.equal({ status: expected.status, body: { error: `why ${kind}` }, headers: {} });
      expect(toGrpc(error)).to.deep.equal({
        code: expected.grpc,
        name: expected.name,
        message: `why ${kind}`,
        retryDelaySeconds: null,
      });
      expect(GRPC_CODES[toGrpc(error).name]).to.equal(expected.grpc);
    });
  }

  it("carry a retry delay as Retry-After and as gRPC retry information, for retryable kinds only", () => {
    const unavailable = new IngestError("store-unavailable", "later", 5);
    expect(toHttp(unavailable).headers).to.deep.equal({ "Retry-After": "5" });
    expect(toGrpc(unavailable).retryDelaySeconds).to.equal(5);
    expect(toGrpc(new IngestError("store-failure", "no", 5)).retryDelaySeconds).to.equal(null);
  });

  it("classify the pipeline's errors with the words HTTP answers have always had", () => {
    const cases: [unknown, IngestErrorKind, string][] = [
      [new PayloadError("bad span"), "invalid-payload", "invalid OTLP logs payload: bad span"],
      [new TooManyValuesError(10), "too-many-values", new TooManyValuesError(10).message],
      [new StoreLostError("deleted"), "store-unavailable", "store unavailable: deleted"],
      [new StorageError("disk full"), "store-failure", "storage failure: disk full"],
    ];
    for (const [error, kind, message] of cases) {
      const failure = ingestErrorOf(error, "logs");
      expect(failure?.kind, message).to.equal(kind);
      expect(failure?.message).to.equal(message);
    }
    const already = new IngestError("too-large", "big");
    expect(ingestErrorOf(already, "traces")).to.equal(already);
    expect(ingestErrorOf(new Error("bug"), "traces")).to.equal(null);
  });

  it("ask a client to retry a transient store failure after a delay, and not a permanent one", () => {
    for (const error of [new StoreUnavailableError("the collector is stopping"), new StoreLostError("deleted")]) {
      const failure = ingestErrorOf(error, "traces") as IngestError;
      expect(toHttp(failure)).to.deep.include({ status: 503, headers: { "Retry-After": "1" } });
      expect(toGrpc(failure)).to.include({ name: "UNAVAILABLE", retryDelaySeconds: 1 });
    }
    const permanent = ingestErrorOf(new StorageError("disk full"), "traces") as IngestError;
    expect(toHttp(permanent)).to.deep.include({ status: 500, headers: {} });
    expect(toGrpc(permanent)).to.include({ name: "INTERNAL", retryDelaySeconds: null });
  });
});
