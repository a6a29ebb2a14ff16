import { expect } from "chai";
import { MAX_LAST_AGE_NS, valueNow } from "../../../daemon/query/metrics/newest-last.js";

const S = 1_000_000_000n;

describe("a series' last value now", () => {
  it("counts while no older than twice the mean gap between its points", () => {
    // Points every 10 s from 0 to 60 s: reach 20 s.
    const series = { value: 7, lastNs: 60n * S, firstNs: 0n, points: 7 };
    expect(valueNow(series, 80n * S)).to.equal(7);
    expect(valueNow(series, 81n * S)).to.equal(null);
    // A point stamped ahead of now counts.
    expect(valueNow(series, 50n * S)).to.equal(7);
  });

  it("counts a single point, or a slow exporter's, for at most MAX_LAST_AGE_NS", () => {
    expect(MAX_LAST_AGE_NS).to.equal(300n * S);
    const single = { value: 3, lastNs: 0n, firstNs: 0n, points: 1 };
    expect(valueNow(single, 300n * S)).to.equal(3);
    expect(valueNow(single, 301n * S)).to.equal(null);
    // Every 4 minutes: twice that is past the cap.
    const slow = { value: 3, lastNs: 240n * S, firstNs: 0n, points: 2 };
    expect(valueNow(slow, 540n * S)).to.equal(3);
    expect(valueNow(slow, 541n * S)).to.equal(null);
  });
});
