import { expect } from "chai";
import { grpcOutcome, httpOutcome, parseRetryAfter, retryDelayMs } from "../../../daemon/forward/retry-policy.js";

describe("forwarding retry policy", () => {
  it("retries 429, 502, 503 and 504, and nothing else the OTLP specification calls permanent", () => {
    for (const status of [429, 502, 503, 504]) expect(httpOutcome(status, undefined, 0).kind).to.equal("retry");
    for (const status of [400, 401, 403, 404, 413, 500])
      expect(httpOutcome(status, undefined, 0).kind).to.equal("permanent");
    expect(httpOutcome(200, undefined, 0).kind).to.equal("ok");
    expect(httpOutcome(202, undefined, 0).kind).to.equal("ok");
  });

  it("retries gRPC UNAVAILABLE and the other retryable codes; INVALID_ARGUMENT, and RESOURCE_EXHAUSTED without RetryInfo, are permanent", () => {
    for (const code of [1, 4, 10, 11, 14, 15]) expect(grpcOutcome(code, "").kind).to.equal("retry");
    for (const code of [2, 3, 5, 7, 8, 12, 13, 16]) expect(grpcOutcome(code, "").kind).to.equal("permanent");
    expect(grpcOutcome(0, "").kind).to.equal("ok");
    expect(grpcOutcome(3, "bad span")).to.deep.equal({
      kind: "permanent",
      reason: "gRPC status 3: bad span",
      perRequest: true,
    });
    expect(grpcOutcome(16, "")).to.deep.equal({ kind: "permanent", reason: "gRPC status 16", perRequest: false });
    // Refusals that may be one request's own are split before anything is dropped; the rest concern the destination.
    expect(httpOutcome(413, undefined, 0)).to.include({ perRequest: true });
    expect(httpOutcome(401, undefined, 0)).to.include({ perRequest: false });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("7", 0)).to.equal(7000);
    const now = Date.parse("2026-11-28T12:00:00Z");
    expect(parseRetryAfter("Sat, 28 Nov 2026 12:00:30 GMT", now)).to.equal(30_000);
    expect(parseRetryAfter("soon", now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
    expect(httpOutcome(503, "2", 0)).to.deep.equal({ kind: "retry", reason: "HTTP 503", retryAfterMs: 2000 });
  });

  it("backs off exponentially with jitter up to its ceiling, and waits at least what Retry-After asks, within reason", () => {
    const policy = { initialMs: 100, maxMs: 1000, maxRetryAfterMs: 5000 };
    expect(retryDelayMs(1, null, policy, () => 0)).to.equal(50);
    expect(retryDelayMs(1, null, policy, () => 1)).to.equal(100);
    expect(retryDelayMs(3, null, policy, () => 1)).to.equal(400);
    expect(retryDelayMs(10, null, policy, () => 1)).to.equal(1000);
    expect(retryDelayMs(60, null, policy, () => 0.5)).to.equal(750);
    expect(retryDelayMs(1, 3000, policy, () => 1)).to.equal(3000);
    expect(retryDelayMs(1, 3_600_000, policy, () => 1)).to.equal(5000);
  });
});
