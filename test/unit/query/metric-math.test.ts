import { expect } from "chai";
import { latestOf, orderGroups } from "../../../daemon/query/metric-answers.js";
import {
  BucketMerge,
  bucketIncrease,
  SummaryQuantile,
  sameShape,
} from "../../../daemon/query/metrics/bucket-increase.js";
import {
  addExplicit,
  addExponential,
  explicitQuantile,
  exponentialQuantile,
} from "../../../daemon/query/metrics/histogram-buckets.js";
import { allowedAggs, defaultAgg, quantileOf, valueUnit } from "../../../daemon/query/metrics/metric-aggs.js";
import { bucketStarts, defaultStepS, sourceForStep } from "../../../daemon/query/metrics/metric-steps.js";

const S = 1_000_000_000n;
const empty = { offset: 0, bucketCounts: [] };

describe("metric math", () => {
  describe("steps and sources", () => {
    it("chooses raw points for a 15-minute window and 15-minute rollup buckets for a day", () => {
      expect(defaultStepS(15 * 60)).to.equal(10);
      expect(sourceForStep(10_000)).to.deep.equal({ kind: "points" });
      expect(defaultStepS(24 * 3600)).to.equal(900);
      expect(sourceForStep(900_000)).to.deep.equal({ kind: "rollups", widthS: 900 });
      expect(86400 / defaultStepS(86400)).to.equal(96);
    });

    it("keeps every default within a few hundred buckets, on a rollup width past half an hour", () => {
      for (const windowS of [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400]) {
        const step = defaultStepS(windowS);
        expect(windowS / step, `${windowS}s`).to.be.at.most(120);
        if (windowS > 1800) expect(step % 60, `${windowS}s`).to.equal(0);
        if (windowS > 6 * 3600) expect(step % 900, `${windowS}s`).to.equal(0);
      }
    });

    it("reads the widest rollup width the step is a multiple of", () => {
      expect(sourceForStep(120_000)).to.deep.equal({ kind: "rollups", widthS: 60 });
      expect(sourceForStep(1_800_000)).to.deep.equal({ kind: "rollups", widthS: 900 });
      expect(sourceForStep(90_000)).to.deep.equal({ kind: "points" });
      expect(sourceForStep(60_500)).to.deep.equal({ kind: "points" });
    });

    it("aligns buckets to the step, the first one holding the window's start", () => {
      const starts = bucketStarts(125n * S, 300n * S, 60_000);
      expect(starts).to.deep.equal([120n * S, 180n * S, 240n * S, 300n * S]);
    });
  });

  describe("explicit-bound quantiles (histogram_quantile)", () => {
    const buckets = { bounds: [0.1, 0.5, 1], counts: [10, 20, 10, 0] };

    it("interpolates linearly within the bucket holding the rank", () => {
      // Rank 20 of 40: 10 below, 10 of the 20 in (0.1, 0.5].
      expect(explicitQuantile(0.5, buckets)).to.be.closeTo(0.1 + 0.4 * (10 / 20), 1e-12);
      // Rank 4 of 40 in the first bucket, which starts at 0.
      expect(explicitQuantile(0.1, buckets)).to.be.closeTo(0.1 * (4 / 10), 1e-12);
      // Rank 38 of 40: 30 below, 8 of 10 in (0.5, 1].
      expect(explicitQuantile(0.95, buckets)).to.be.closeTo(0.5 + 0.5 * 0.8, 1e-12);
    });

    it("answers the highest finite bound for a rank in the +Inf bucket, and null without observations", () => {
      expect(explicitQuantile(0.99, { bounds: [1, 2], counts: [1, 0, 9] })).to.equal(2);
      expect(explicitQuantile(0.5, { bounds: [1, 2], counts: [0, 0, 0] })).to.equal(null);
      expect(explicitQuantile(0.5, { bounds: [-1, 2], counts: [4, 0, 0] })).to.equal(-1);
    });

    it("reads an infinite bound (stored as JSON null) as the end of the finite buckets", () => {
      // [1, Infinity] as JSON gives it back: the observations over 1 answer 1, the highest finite bound.
      const stored = JSON.parse(JSON.stringify({ bounds: [1, Number.POSITIVE_INFINITY], counts: [0, 4, 0] }));
      expect(explicitQuantile(0.5, stored)).to.equal(1);
      expect(explicitQuantile(0.99, stored)).to.equal(1);
      // Merged with other bounds, in either order: 4 of 6 observations over 2 answer 2.
      const other = { bounds: [0.5, 2], counts: [2, 0, 0] };
      for (const [first, second] of [
        [stored, other],
        [other, stored],
      ]) {
        const merged = addExplicit(addExplicit(null, first), second);
        expect(explicitQuantile(0.5, merged)).to.equal(2);
        expect(explicitQuantile(0.99, merged)).to.equal(2);
      }
    });

    it("takes no bounds from buckets without observations: an idle series does not move a busy one's quantile", () => {
      const busy = { bounds: [1], counts: [10, 0] };
      const idle = { bounds: [0.1, 0.3, 0.5, 0.7, 0.9], counts: [0, 0, 0, 0, 0, 0] };
      expect(explicitQuantile(0.5, addExplicit(addExplicit(null, busy), idle))).to.equal(0.5);
      expect(explicitQuantile(0.5, addExplicit(addExplicit(null, idle), busy))).to.equal(0.5);
    });

    it("keeps the bounds when the buckets added are under some of them", () => {
      const merged = addExplicit(addExplicit(null, buckets), { bounds: [0.1, 1], counts: [1, 2, 3] });
      expect(merged).to.deep.equal({ bounds: [0.1, 0.5, 1], counts: [11, 20, 12, 3] });
    });

    it("merges buckets with the same bounds by adding counts", () => {
      const merged = addExplicit(addExplicit(null, buckets), { bounds: [0.1, 0.5, 1], counts: [0, 0, 0, 4] });
      expect(merged.counts).to.deep.equal([10, 20, 10, 4]);
    });
  });

  describe("exponential quantiles", () => {
    it("interpolates exponentially within a bucket at the histogram's own scale", () => {
      // Scale 0: buckets (1, 2] and (2, 4]; rank 3 of 4 lies halfway into (2, 4]: 2 * 2^0.5.
      const h = { scale: 0, zeroCount: 0, positive: { offset: 0, bucketCounts: [2, 2] }, negative: empty };
      expect(exponentialQuantile(0.5, h)).to.be.closeTo(2, 1e-12);
      expect(exponentialQuantile(0.75, h)).to.be.closeTo(2 * Math.SQRT2, 1e-12);
      // Scale 1: base sqrt(2); bucket 2 is (2, 2*sqrt(2)].
      const fine = { scale: 1, zeroCount: 0, positive: { offset: 2, bucketCounts: [4] }, negative: empty };
      expect(exponentialQuantile(0.5, fine)).to.be.closeTo(2 * Math.SQRT2 ** 0.5, 1e-12);
    });

    it("answers a finite quantile at the lowest scale, whose base overflows a double", () => {
      // Scale -10: base 2^1024. Bucket -1 is (2^-1024, 1], bucket 0 (1, 2^1024]; the upper
      // bound of bucket 0 is past the largest double, so a value in it is at most that.
      const h = { scale: -10, zeroCount: 0, positive: { offset: -1, bucketCounts: [2, 2] }, negative: empty };
      expect(exponentialQuantile(0.5, h)).to.equal(1);
      // A quarter into bucket -1: 2^(-1024 + 1024 / 2), the halfway point of its exponents.
      expect(exponentialQuantile(0.25, h)).to.equal(2 ** -512);
      expect(exponentialQuantile(0.75, h)).to.equal(2 ** 512);
      expect(exponentialQuantile(1, h)).to.equal(Number.MAX_VALUE);
      const neg = { scale: -10, zeroCount: 0, positive: empty, negative: { offset: 0, bucketCounts: [2] } };
      expect(exponentialQuantile(0.5, neg)).to.equal(-(2 ** 512));
      expect(exponentialQuantile(0, neg)).to.equal(-Number.MAX_VALUE);
    });

    it("mirrors negative buckets and answers 0 from the zero bucket", () => {
      const neg = { scale: 0, zeroCount: 0, positive: empty, negative: { offset: 0, bucketCounts: [4] } };
      expect(exponentialQuantile(0.5, neg)).to.be.closeTo(-Math.SQRT2, 1e-12);
      const zero = { scale: 0, zeroCount: 3, positive: { offset: 0, bucketCounts: [1] }, negative: empty };
      expect(exponentialQuantile(0.5, zero)).to.equal(0);
    });

    it("merges histograms of different scales at the lowest", () => {
      const fine = { scale: 1, zeroCount: 1, positive: { offset: 0, bucketCounts: [1, 1, 1, 1] }, negative: empty };
      const coarse = { scale: 0, zeroCount: 0, positive: { offset: 0, bucketCounts: [1, 0] }, negative: empty };
      const merged = addExponential(addExponential(null, fine), coarse);
      expect(merged).to.deep.equal({
        scale: 0,
        zeroCount: 1,
        positive: { offset: 0, bucketCounts: [3, 2] },
        negative: { offset: 0, bucketCounts: [] },
      });
    });

    it("merges series whose values lie far apart at scale 20 into a bounded number of buckets, quantiles intact", () => {
      // An SDK starts at scale 20; a series that saw only 0.002 and one that saw only 3 are
      // 2^20 * log2(1500) (about eleven million) indexes apart.
      const at = (value: number, count: number) => ({
        scale: 20,
        zeroCount: 0,
        positive: { offset: Math.ceil(Math.log2(value) * 2 ** 20) - 1, bucketCounts: [count] },
        negative: empty,
      });
      const merged = addExponential(addExponential(null, at(0.002, 3)), at(3, 1));
      expect(merged.positive.bucketCounts.length).to.be.at.most(160);
      expect(merged.positive.bucketCounts.reduce((a, b) => a + b, 0)).to.equal(4);
      // Three of four observations at 0.002: the median is in its bucket, the 90th in 3's.
      expect(exponentialQuantile(0.5, merged)).to.be.closeTo(0.002, 0.002 * 0.05);
      expect(exponentialQuantile(0.9, merged)).to.be.closeTo(3, 3 * 0.05);
    });
  });

  describe("bucket increases", () => {
    const before = { bounds: [1, 5], counts: [1, 2, 0] };
    const after = { bounds: [1, 5], counts: [2, 5, 1] };

    it("subtracts the previous point, keeps a reset's whole counts and zeroes a first point without a start", () => {
      expect(bucketIncrease(after, before, "diff")).to.deep.equal({ bounds: [1, 5], counts: [1, 3, 1] });
      expect(bucketIncrease(after, before, "whole")).to.deep.equal(after);
      expect(bucketIncrease(after, null, "zero")).to.deep.equal({ bounds: [1, 5], counts: [0, 0, 0] });
      expect(sameShape(after, before)).to.equal(true);
      expect(sameShape(after, { bounds: [1, 10], counts: [0, 0, 0] })).to.equal(false);
    });

    it("subtracts exponential buckets index by index, whatever their offsets", () => {
      const a = {
        scale: 2,
        zeroCount: 1,
        zeroThreshold: 0,
        positive: { offset: 3, bucketCounts: [1, 1] },
        negative: empty,
      };
      const b = {
        scale: 2,
        zeroCount: 2,
        zeroThreshold: 0,
        positive: { offset: 2, bucketCounts: [1, 2, 3] },
        negative: empty,
      };
      expect(bucketIncrease(b, a, "diff")).to.deep.equal({
        scale: 2,
        zeroCount: 1,
        positive: { offset: 2, bucketCounts: [1, 1, 2] },
        negative: { offset: 0, bucketCounts: [] },
      });
    });

    it("merges a group's buckets before taking the quantile", () => {
      const merge = new BucketMerge();
      merge.add({ bounds: [10, 20], counts: [2, 0, 0] });
      merge.add({ bounds: [10, 20], counts: [0, 2, 0] });
      // Rank 3 of 4: halfway into (10, 20].
      expect(merge.quantile(0.75)).to.be.closeTo(15, 1e-12);
    });

    it("interpolates within the part of a bucket the recorded min and max leave, not pinned to them", () => {
      // An SDK's default bounds (made for milliseconds) under a histogram in seconds: every
      // observation in (0, 5]. Interpolated over (0, 5] and then held at the max, p50, p95 and
      // p99 all read the max.
      const coarse = new BucketMerge();
      coarse.add({ bounds: [0, 5, 10], counts: [0, 149, 0, 0] }, 0.001, 0.9986);
      coarse.add({ bounds: [0, 5, 10], counts: [0, 149, 0, 0] }, 0.01, 0.99);
      expect(coarse.quantile(0.5)).to.be.closeTo(0.001 + 0.5 * (0.9986 - 0.001), 1e-12);
      expect(coarse.quantile(0.95)).to.be.closeTo(0.001 + 0.95 * (0.9986 - 0.001), 1e-12);
      // The lowest bucket starts at the min, not at 0; the +Inf bucket ends at the max, not at
      // the highest finite bound.
      const low = new BucketMerge();
      low.add({ bounds: [1, 2], counts: [10, 0, 0] }, 0.5, 0.9);
      expect(low.quantile(0.5)).to.be.closeTo(0.7, 1e-12);
      const high = new BucketMerge();
      high.add({ bounds: [1, 2], counts: [0, 0, 10] }, 3, 7);
      expect(high.quantile(0.5)).to.be.closeTo(5, 1e-12);
      // A bucket the min and max do not narrow is interpolated over its bounds as before.
      const wide = new BucketMerge();
      wide.add({ bounds: [10, 20], counts: [2, 2, 0] }, 0, 20);
      expect(wide.quantile(0.75)).to.be.closeTo(15, 1e-12);
      // Exponential buckets alike, at their own geometry: (64, 128] holding 80 to 100.
      const exp = new BucketMerge();
      exp.add({ scale: 0, zeroCount: 0, positive: { offset: 6, bucketCounts: [100] }, negative: empty }, 80, 100);
      expect(exp.quantile(0.5)).to.be.closeTo(80 * (100 / 80) ** 0.5, 1e-9);
      // Negative ones from their most negative end: (-128, -64] holding -100 to -80.
      const neg = new BucketMerge();
      neg.add({ scale: 0, zeroCount: 0, positive: empty, negative: { offset: 6, bucketCounts: [100] } }, -100, -80);
      expect(neg.quantile(0.5)).to.be.closeTo(-(100 * (80 / 100) ** 0.5), 1e-9);
      // Without them (one series did not record them), the bucket's own bounds.
      const unbounded = new BucketMerge();
      unbounded.add({ bounds: [0, 5, 10], counts: [0, 10, 0, 0] }, 0.001, 0.9986);
      unbounded.add({ bounds: [0, 5, 10], counts: [0, 10, 0, 0] });
      expect(unbounded.quantile(0.5)).to.be.closeTo(2.5, 1e-12);
    });

    it("weights summaries' own quantiles by their counts, skipping series that did not report one", () => {
      const q = new SummaryQuantile();
      q.add([[0.95, 10]], 3, 0.95);
      q.add([[0.95, 20]], 1, 0.95);
      q.add([[0.5, 99]], 5, 0.95);
      expect(q.value()).to.equal((10 * 3 + 20) / 4);
    });
  });

  describe("aggregations", () => {
    it("takes the gauge aggregations for a cumulative sum that is not monotonic, with the defaults by type", () => {
      expect(allowedAggs({ type: "sum", monotonic: true, temporality: 2 })).to.deep.equal(["rate", "increase", "sum"]);
      expect(allowedAggs({ type: "sum", monotonic: false, temporality: 2 })).to.include("last");
      expect(defaultAgg({ type: "sum", monotonic: false, temporality: 2 })).to.equal("last");
      expect(defaultAgg({ type: "exponential_histogram", monotonic: false, temporality: 1 })).to.equal("p95");
      // A delta up-down sum's points are changes: they add up as a counter's do; its latest is no level.
      expect(allowedAggs({ type: "sum", monotonic: false, temporality: 1 })).to.deep.equal(["rate", "increase", "sum"]);
      expect(quantileOf("p99")).to.equal(0.99);
      expect(quantileOf("avg")).to.equal(null);
      expect(valueUnit("{token}", "rate")).to.equal("{token}/s");
    });

    it("orders groups by their newest value, largest first, groups without one last", () => {
      const group = (key: string, values: (number | null)[]) => ({
        key: [key],
        values,
        series: 1,
        resets: 0,
        exemplars: [],
      });
      const ordered = orderGroups([
        group("a", [9, null]),
        group("b", [1, 3]),
        group("c", [null, null]),
        group("d", [5]),
      ]);
      // a's newest value is its 9 (its last bucket is empty).
      expect(ordered.map((g) => g.key[0])).to.deep.equal(["a", "d", "b", "c"]);
      // Equal newest values (rates that are 0 now): the larger value before them first, then the key.
      const quiet = orderGroups([group("x", [1, 0]), group("y", [7, 0]), group("w", [1, 0]), group("z", [0])]);
      expect(quiet.map((g) => g.key[0])).to.deep.equal(["y", "w", "x", "z"]);
      expect(Object.keys(quiet[0]!)).to.not.include("before");
      expect(latestOf([1, 2, null])).to.equal(2);
    });
  });
});
