import { expect } from "chai";
import type { ExpBuckets } from "../../../daemon/otlp/records.js";
import { addSides, bucketIncrease, MAX_MERGED_BUCKETS, type ScaledSides } from "../../../daemon/store/exp-buckets.js";

/** The index of the scale-`scale` bucket holding `value` > 0: (base^i, base^(i+1)], base = 2^(2^-scale). */
function indexOf(value: number, scale: number): number {
  return Math.ceil(Math.log2(value) * 2 ** scale) - 1;
}

/** One observation of `value` at `scale`, on the positive side. */
function single(value: number, scale: number, count = 1): ScaledSides {
  return { scale, positive: { offset: indexOf(value, scale), bucketCounts: [count] }, negative: empty() };
}

function empty(): ExpBuckets {
  return { offset: 0, bucketCounts: [] };
}

function total(side: ExpBuckets): number {
  return side.bucketCounts.reduce((a, b) => a + b, 0);
}

/** The bucket of `side` at `scale` that holds `value`: its count. */
function countAt(side: ExpBuckets, scale: number, value: number): number {
  return side.bucketCounts[indexOf(value, scale) - side.offset] ?? 0;
}

describe("exponential bucket arithmetic", () => {
  it("adds at the lower scale when the merged buckets fit", () => {
    const sum = addSides(single(1.5, 3), single(1.7, 2));
    expect(sum.scale).to.equal(2);
    expect(total(sum.positive)).to.equal(2);
    expect(countAt(sum.positive, 2, 1.5) + countAt(sum.positive, 2, 1.7)).to.be.at.least(2);
  });

  it("lowers the scale until each side spans at most the SDKs' default bucket count, keeping every count", () => {
    // At scale 20 (an SDK's starting scale) 1 and 4 are 2^21 indexes apart.
    const sum = addSides(single(1, 20, 3), single(4, 20, 5));
    expect(sum.positive.bucketCounts.length).to.be.at.most(MAX_MERGED_BUCKETS);
    expect(sum.scale).to.be.below(20);
    // One scale higher would not have fitted: the scale is lowered no more than it must.
    expect(2 * (indexOf(4, sum.scale + 1) - indexOf(1, sum.scale + 1)) + 1).to.be.above(MAX_MERGED_BUCKETS);
    expect(countAt(sum.positive, sum.scale, 1)).to.equal(3);
    expect(countAt(sum.positive, sum.scale, 4)).to.equal(5);
  });

  it("bounds a merge of values sixty decades apart, both sides at one scale", () => {
    const a: ScaledSides = { ...single(1e-30, 20), negative: { offset: indexOf(2, 20), bucketCounts: [7] } };
    const sum = addSides(a, single(1e30, 20));
    expect(sum.positive.bucketCounts.length).to.be.at.most(MAX_MERGED_BUCKETS);
    expect(sum.negative.bucketCounts).to.deep.equal([7]);
    expect(sum.negative.offset).to.equal(indexOf(2, sum.scale));
    expect(countAt(sum.positive, sum.scale, 1e-30)).to.equal(1);
    expect(countAt(sum.positive, sum.scale, 1e30)).to.equal(1);
  });

  it("lowers indexes past 32 bits and across more than 32 scales without wrapping", () => {
    const far: ScaledSides = { scale: 20, positive: { offset: 2 ** 33, bucketCounts: [1] }, negative: empty() };
    const near: ScaledSides = { scale: -15, positive: { offset: -1, bucketCounts: [2] }, negative: empty() };
    const sum = addSides(far, near);
    expect(sum.scale).to.equal(-15);
    // 2^33 at scale 20 is 2^33 / 2^35 = 0.25, floor 0, at scale -15; -1 stays -1.
    expect(sum.positive).to.deep.equal({ offset: -1, bucketCounts: [2, 1] });
  });

  it("subtracts the earlier point at the lower scale, spanning no more than the later one", () => {
    const later = { offset: 8, bucketCounts: [4, 0, 6] };
    const earlier = { offset: 16, bucketCounts: [1, 1, 2] };
    // The earlier point at scale 3 lowered to 2: indexes 16, 17 into 8, and 18 into 9.
    expect(bucketIncrease(later, 2, earlier, 3)).to.deep.equal({ offset: 8, bucketCounts: [2, 0, 6] });
  });
});
