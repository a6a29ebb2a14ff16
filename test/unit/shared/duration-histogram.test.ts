import { expect } from "chai";
import {
  bucketOf,
  bucketsOfMs,
  bucketValueMs,
  encodeBuckets,
  mergeEncoded,
  quantileMs,
  totalCount,
} from "../../../shared/duration-histogram.js";

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function exactRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] as number;
}

describe("duration histogram", () => {
  it("reads every quantile within 1% of the exact nearest-rank value", () => {
    const next = random(7);
    for (let round = 0; round < 50; round++) {
      // Durations from 2 µs to about 20 s, log-uniform, like real span durations.
      const values = Array.from({ length: 1 + Math.floor(next() * 400) }, () => 0.002 * 10 ** (next() * 4));
      const buckets = bucketsOfMs(values);
      expect(totalCount(buckets)).to.equal(values.length);
      for (const p of [50, 90, 95, 99, 100]) {
        const exact = exactRank(values, p);
        expect(Math.abs(quantileMs(buckets, p) - exact) / exact).to.be.at.most(0.01, `p${p} of round ${round}`);
      }
    }
  });

  it("puts durations up to 1 µs in bucket 0 and keeps buckets 2% apart", () => {
    expect(bucketOf(0)).to.equal(0);
    expect(bucketOf(1000)).to.equal(0);
    expect(bucketOf(1001)).to.equal(1);
    expect(bucketValueMs(0)).to.equal(0.001);
    expect(bucketValueMs(101) / bucketValueMs(100)).to.be.closeTo(1.02, 1e-9);
    expect(quantileMs(new Map(), 95)).to.equal(0);
  });

  it("survives encoding, and merging encoded rows adds their counts", () => {
    const a = bucketsOfMs([1, 2, 2, 300]);
    const b = bucketsOfMs([2, 5000]);
    const merged = new Map(a);
    mergeEncoded(merged, encodeBuckets(b));
    expect(merged).to.deep.equal(bucketsOfMs([1, 2, 2, 300, 2, 5000]));
    const decoded = new Map();
    // A view into a larger buffer, as SQLite hands blobs over.
    const encoded = encodeBuckets(a);
    const padded = Buffer.concat([Buffer.from([9, 9, 9]), encoded]).subarray(3);
    mergeEncoded(decoded, padded);
    expect(decoded).to.deep.equal(a);
  });

  it("stores each bucket as its distance from the one before less 1, then its count, as varints", () => {
    const buckets = new Map([
      [300, 70_000],
      [0, 1],
      [1, 3],
    ]);
    // Bucket 0 (distance 1 from -1, less 1: 0), count 1; bucket 1: 0, 3; bucket 300: 298 (0xaa
    // 0x02), 70,000 (0xf0 0xa2 0x04).
    expect([...encodeBuckets(buckets)]).to.deep.equal([0, 1, 0, 3, 0xaa, 0x02, 0xf0, 0xa2, 0x04]);
    const decoded = new Map();
    mergeEncoded(decoded, encodeBuckets(buckets));
    expect(decoded).to.deep.equal(buckets);
    expect(() => mergeEncoded(new Map(), Buffer.from([0, 0x81]))).to.throw(RangeError);
  });
});
