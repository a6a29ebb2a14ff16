import { expect } from "chai";
import { type CarriedValue, carryLast, MAX_CARRY_NS } from "../../../daemon/query/metrics/carried-last.js";

const S = 1_000_000_000n;
/** Ten 60 s buckets from 0, the window ending at 570 s (the newest bucket open). */
const starts = Array.from({ length: 10 }, (_, k) => BigInt(k * 60) * S);
const bucket = { starts, stepNs: 60n * S, toNs: 570n * S };
const carried = (over: Partial<CarriedValue>): CarriedValue => ({
  seriesId: 1,
  gid: 0,
  b: 0,
  value: 5,
  timeNs: 30n * S,
  gapNs: null,
  next: null,
  ...over,
});

describe("a series' last value carried into the buckets after it", () => {
  it("carries a first value for at most MAX_CARRY_NS, to a bucket's end", () => {
    const values: (number | null)[][] = [starts.map(() => null)];
    carryLast(values, [carried({})], bucket);
    // 30 s: buckets ending at 120 .. 300 s are within five minutes; the one ending at 360 s is not.
    expect(MAX_CARRY_NS).to.equal(300n * S);
    expect(values[0]).to.deep.equal([null, 5, 5, 5, 5, null, null, null, null, null]);
  });

  it("carries a value for twice the time from the point before it, adding to the bucket's own values", () => {
    const values: (number | null)[][] = [[1, 1, 1, 1, 1, 1, 1, 1, 1, null]];
    const counted = carryLast(values, [carried({ gapNs: 50n * S })], bucket);
    // Reach 100 s: the bucket ending at 120 s only.
    expect(values[0]).to.deep.equal([1, 6, 1, 1, 1, 1, 1, 1, 1, null]);
    expect([...(counted.get(0) ?? [])]).to.deep.equal([1]);
  });

  it("stops at the series' next bucket with a value, and reads the newest bucket at now", () => {
    const values: (number | null)[][] = [starts.map(() => null)];
    carryLast(values, [carried({ b: 3, timeNs: 200n * S, next: 5 }), carried({ b: 8, timeNs: 500n * S })], bucket);
    // From 200 s to bucket 5, its next; from 500 s into the newest bucket, whose end is now (570 s).
    expect(values[0]).to.deep.equal([null, null, null, null, 5, null, null, null, null, 5]);
  });

  it("carries a value from before the window into its first buckets, and none past the window", () => {
    const values: (number | null)[][] = [starts.map(() => null)];
    const counted = carryLast(values, [carried({ b: -1, timeNs: -30n * S, gapNs: 60n * S })], bucket);
    // Reach 120 s from -30 s: the first bucket (ending at 60 s) only.
    expect(values[0]).to.deep.equal([5, null, null, null, null, null, null, null, null, null]);
    expect(counted.get(0)?.has(1)).to.equal(true);
    const none: (number | null)[][] = [starts.map(() => null)];
    expect(carryLast(none, [carried({ b: -9, timeNs: -500n * S })], bucket).size).to.equal(0);
    expect(none[0]).to.deep.equal(starts.map(() => null));
  });
});
