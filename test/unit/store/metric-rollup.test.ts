import { expect } from "chai";
import {
  type ExponentialIncrease,
  firstCountsWhole,
  mergeRows,
  pointIncrease,
  type RollupPoint,
  type RollupRow,
  rollupPoints,
  type SeriesKind,
} from "../../../daemon/store/metric-rollup.js";

const S = 1_000_000_000n;
/** A fifteen-minute boundary, so slot arithmetic is easy to read. */
const T0 = 1_700_000_100n * S;

const CUMULATIVE: SeriesKind = { kind: "sum", temporality: 2, monotonic: true, firstWhole: true };
const DELTA: SeriesKind = { kind: "sum", temporality: 1, monotonic: true, firstWhole: true };
const UP_DOWN: SeriesKind = { kind: "sum", temporality: 2, monotonic: false, firstWhole: true };
const GAUGE: SeriesKind = { kind: "gauge", temporality: 0, monotonic: false, firstWhole: true };
const HISTOGRAM: SeriesKind = { kind: "histogram", temporality: 2, monotonic: false, firstWhole: true };
const EXPONENTIAL: SeriesKind = { kind: "exponential_histogram", temporality: 2, monotonic: false, firstWhole: true };
const SUMMARY: SeriesKind = { kind: "summary", temporality: 0, monotonic: false, firstWhole: true };

function point(seconds: number, spec: Partial<RollupPoint> = {}): RollupPoint {
  return {
    timeNs: T0 + BigInt(seconds) * S,
    startNs: 0n,
    value: null,
    count: null,
    sum: null,
    min: null,
    max: null,
    detail: null,
    traceIds: [],
    flags: 0,
    ...spec,
  };
}

/** The one-minute rows of `points` after `prev`. */
function minutes(series: SeriesKind, points: RollupPoint[], prev: RollupPoint | null = null): RollupRow[] {
  return rollupPoints(series, prev, points, [60]);
}

describe("metric rollups", () => {
  const start = T0 - 100n * S;

  it("counts a cumulative series' first point whole only when the series says so", () => {
    expect(pointIncrease(CUMULATIVE, null, point(0, { value: 7, startNs: start })).increase).to.equal(7);
    const baseline = { ...CUMULATIVE, firstWhole: false };
    expect(pointIncrease(baseline, null, point(0, { value: 7, startNs: start })).increase).to.equal(0);
  });

  it("decides a first point counts whole when its start is set, not after it, and not before the collector started", () => {
    const whole = (startNs: bigint, collectorStartNs: bigint) =>
      firstCountsWhole(point(0, { startNs }), collectorStartNs);
    expect(whole(0n, 0n)).to.equal(false);
    expect(whole(start, 0n)).to.equal(true);
    expect(whole(start, start)).to.equal(true);
    // Started a day before the collector: its value is a lifetime count, the baseline.
    expect(whole(start, start + 1n)).to.equal(false);
    expect(whole(T0 - 86_400n * S, T0 - 60n * S)).to.equal(false);
    // A start equal to the point's time is one (a process that records and exports within a
    // millisecond), whenever the collector started; a start after it is not.
    expect(whole(T0, T0 + 10n * S)).to.equal(true);
    expect(whole(T0 + 1n, 0n)).to.equal(false);
  });

  it("adds a cumulative sum's growth and counts a reset by start change or by drop whole", () => {
    const rows = minutes(CUMULATIVE, [
      point(0, { value: 10, startNs: start }),
      point(10, { value: 15, startNs: start }),
      point(20, { value: 4, startNs: start }),
      point(30, { value: 6, startNs: T0 + 25n * S }),
      point(40, { value: 9, startNs: T0 + 25n * S }),
    ]);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ points: 5, increase: 10 + 5 + 4 + 6 + 3, resets: 2, valueLast: 9, valueMin: 4 });
    expect(rows[0]).to.include({ valueMax: 15, valueSum: 10 + 15 + 4 + 6 + 9, firstNs: T0, lastNs: T0 + 40n * S });
  });

  it("takes an increase across a slot boundary from the point before, in the earlier slot", () => {
    const rows = minutes(CUMULATIVE, [
      point(50, { value: 100, startNs: start }),
      point(70, { value: 130, startNs: start }),
    ]);
    expect(rows.map((row) => [row.slot - rows[0]!.slot, row.increase])).to.deep.equal([
      [0, 100],
      [1, 30],
    ]);
    const later = minutes(
      CUMULATIVE,
      [point(70, { value: 130, startNs: start })],
      point(50, { value: 100, startNs: start }),
    );
    expect(later[0]?.increase).to.equal(30);
  });

  it("sums delta points and takes a non-monotonic cumulative sum's plain difference", () => {
    const delta = minutes(DELTA, [point(0, { value: 3 }), point(10, { value: 4 }), point(20, { value: 1 })]);
    expect(delta[0]).to.include({ increase: 8, resets: 0 });
    const upDown = minutes(UP_DOWN, [
      point(0, { value: 10, startNs: start }),
      point(10, { value: 4, startNs: start }),
      point(20, { value: 6, startNs: start }),
    ]);
    expect(upDown[0]).to.include({ increase: 10 - 6 + 2, resets: 0 });
  });

  it("keeps a gauge's sum, bounds and newest value, and no increase", () => {
    const rows = minutes(GAUGE, [point(0, { value: 5 }), point(10, { value: -2 }), point(20, { value: 3 })]);
    expect(rows[0]).to.include({ valueSum: 6, valueMin: -2, valueMax: 5, valueLast: 3, increase: null, buckets: null });
  });

  it("adds histogram bucket increases and restarts on new bounds", () => {
    const h = (seconds: number, counts: number[], bounds = [1, 5]) =>
      point(seconds, {
        startNs: start,
        count: counts.reduce((a, b) => a + b, 0),
        sum: counts.reduce((a, b) => a + b, 0) * 2,
        min: seconds,
        max: 100 + seconds,
        detail: { bounds, counts },
      });
    const rows = minutes(HISTOGRAM, [h(0, [1, 2, 0]), h(10, [2, 5, 1]), h(20, [3, 6, 1])]);
    expect(rows[0]).to.include({
      increase: 10,
      sumIncrease: 20,
      resets: 0,
      valueMin: 0,
      valueMax: 120,
      valueSum: null,
    });
    expect(rows[0]?.buckets).to.deep.equal({ bounds: [1, 5], counts: [3, 6, 1] });
    const rebounded = minutes(HISTOGRAM, [h(0, [1, 2, 0]), h(10, [2, 5, 1]), h(20, [1, 1], [10])]);
    expect(rebounded[0]).to.include({ increase: 3 + 5 + 2, resets: 1 });
    // The slot's buckets are under both bounds together, each bucket counted at its own upper
    // bound (the new <= 10 at 10, both +Inf at +Inf), so the totals stay the slot's count.
    expect(rebounded[0]?.buckets).to.deep.equal({ bounds: [1, 5, 10], counts: [1 + 1, 2 + 3, 1, 0 + 1 + 1] });
    const dropped = minutes(HISTOGRAM, [h(0, [1, 2, 0]), h(10, [0, 1, 0])]);
    expect(dropped[0]).to.include({ increase: 3 + 1, resets: 1 });
  });

  it("diffs exponential buckets at one scale and merges points of different scales at the lowest", () => {
    const e = (seconds: number, scale: number, offset: number, counts: number[], zeroCount = 0) =>
      point(seconds, {
        startNs: start,
        count: counts.reduce((a, b) => a + b, 0) + zeroCount,
        sum: 1,
        detail: {
          scale,
          zeroCount,
          zeroThreshold: 0,
          positive: { offset, bucketCounts: counts },
          negative: { offset: 0, bucketCounts: [] },
        },
      });
    const same = minutes(EXPONENTIAL, [e(0, 2, 4, [1, 1], 1), e(10, 2, 3, [2, 3, 1], 2)]);
    const sameBuckets = same[0]?.buckets as ExponentialIncrease;
    expect(sameBuckets).to.deep.include({ scale: 2, zeroCount: 1 + (2 - 1) });
    // Index 3: 2 new; 4: 1 + 2; 5: 1 + 0.
    expect(sameBuckets.positive).to.deep.equal({ offset: 3, bucketCounts: [2, 3, 1] });
    // Scale 1 then scale 0 under one start: not a reset (the SDK lowered the scale, the counts
    // carry on); the earlier point is brought to scale 0 (index i >> 1: [2] at 1) and
    // subtracted, the slot's buckets merged at scale 0.
    const merged = minutes(EXPONENTIAL, [e(0, 1, 2, [1, 1]), e(10, 0, 1, [4])]);
    expect(merged[0]).to.include({ resets: 0, increase: 2 + 2 });
    const mergedBuckets = merged[0]?.buckets as ExponentialIncrease;
    expect(mergedBuckets.positive).to.deep.equal({ offset: 1, bucketCounts: [4] });
    expect(mergedBuckets.scale).to.equal(0);
  });

  it("merges delta exponential points far apart at scale 20 into a bounded row, every count kept", () => {
    // Delta points: an SDK picks each export's scale from its own values, 20 for one value.
    const one = (seconds: number, value: number) =>
      point(seconds, {
        startNs: T0 + BigInt(seconds - 10) * S,
        count: 1,
        sum: value,
        detail: {
          scale: 20,
          zeroCount: 0,
          zeroThreshold: 0,
          positive: { offset: Math.ceil(Math.log2(value) * 2 ** 20) - 1, bucketCounts: [1] },
          negative: { offset: 0, bucketCounts: [] },
        },
      });
    const delta = { ...EXPONENTIAL, temporality: 1 };
    const rows = minutes(delta, [one(0, 0.002), one(10, 3), one(20, 0.002), one(30, 1e30)]);
    const buckets = rows[0]?.buckets as ExponentialIncrease;
    expect(buckets.positive.bucketCounts.length).to.be.at.most(160);
    expect(buckets.positive.bucketCounts.reduce((a, b) => a + b, 0)).to.equal(4);
    const merged = mergeRows("exponential_histogram", 900, 0, [rows[0] as RollupRow, rows[0] as RollupRow]);
    const twice = merged.buckets as ExponentialIncrease;
    expect(twice.positive.bucketCounts.reduce((a, b) => a + b, 0)).to.equal(8);
    expect(twice.positive.bucketCounts.length).to.be.at.most(160);
  });

  it("carries an exponential histogram's counts across a lowered scale, without a reset", () => {
    const e = (seconds: number, scale: number, offset: number, counts: number[], startNs = start) =>
      point(seconds, {
        startNs,
        count: counts.reduce((a, b) => a + b, 0),
        sum: 1,
        detail: {
          scale,
          zeroCount: 0,
          zeroThreshold: 0,
          positive: { offset, bucketCounts: counts },
          negative: { offset: 0, bucketCounts: [] },
        },
      });
    // Scale 2 indexes 4 and 5 are scale 1 index 2; a new value at scale 1 index 5 lowered the scale.
    const rows = minutes(EXPONENTIAL, [
      e(0, 2, 4, [50, 50]),
      e(60, 1, 2, [100, 0, 0, 1]),
      e(120, 1, 2, [100, 0, 0, 2]),
    ]);
    expect(rows.map((row) => [row.increase, row.resets])).to.deep.equal([
      [100, 0],
      [1, 0],
      [1, 0],
    ]);
    expect(rows[1]?.buckets).to.deep.include({ scale: 1, zeroCount: 0, positive: { offset: 5, bucketCounts: [1] } });
    // A moved start time still is a reset, whatever the scale.
    const restarted = minutes(EXPONENTIAL, [e(0, 2, 4, [50, 50]), e(60, 1, 2, [3], T0 + 30n * S)]);
    expect(restarted.map((row) => [row.increase, row.resets])).to.deep.equal([
      [100, 0],
      [3, 1],
    ]);
  });

  it("keeps a summary's newest quantiles and its count and sum increases", () => {
    const q = (seconds: number, count: number, sum: number, p50: number) =>
      point(seconds, { startNs: start, count, sum, detail: { quantiles: [[0.5, p50]] } });
    const rows = minutes(SUMMARY, [q(0, 10, 100, 1), q(10, 14, 150, 2), q(20, 20, 210, 3)]);
    expect(rows[0]).to.include({ increase: 20, sumIncrease: 210, resets: 0 });
    expect(rows[0]?.buckets).to.deep.equal({ quantiles: [[0.5, 3]] });
  });

  it("keeps up to three exemplar trace ids, newest first, each at its point's time", () => {
    const rows = minutes(GAUGE, [
      // A point's traceIds come newest first (exemplarTraceIds).
      point(0, { value: 1, traceIds: ["b", "a"] }),
      point(10, { value: 1, traceIds: ["c"] }),
      point(20, { value: 1, traceIds: ["e", "d"] }),
    ]);
    const at = (seconds: number) => T0 + BigInt(seconds) * S;
    expect(rows[0]?.exemplars).to.deep.equal([
      { traceId: "e", timeNs: at(20) },
      { traceId: "d", timeNs: at(20) },
      { traceId: "c", timeNs: at(10) },
    ]);
    // A point folded in after a newer one (a slot refolded, or the newest's first) takes its place by time.
    const late = minutes(GAUGE, [
      point(0, { value: 1, traceIds: ["b", "a"] }),
      point(20, { value: 1, traceIds: ["e"] }),
    ]);
    const existing = late[0] as RollupRow;
    const [again] = rollupPoints(GAUGE, null, [point(10, { value: 1, traceIds: ["c", "e"] })], [60], () => existing);
    expect(again?.exemplars).to.deep.equal([
      { traceId: "e", timeNs: at(20) },
      { traceId: "c", timeNs: at(10) },
      { traceId: "b", timeNs: at(0) },
    ]);
  });

  it("gives one row per width and slot", () => {
    const rows = rollupPoints(GAUGE, null, [point(0, { value: 1 }), point(61, { value: 2 })], [60, 900]);
    expect(rows.map((row) => [row.widthS, row.points])).to.deep.equal([
      [60, 1],
      [60, 1],
      [900, 2],
    ]);
  });

  it("merges a slot's minute rows into the row its points fold into, for every kind", () => {
    // Fifteen minutes at 10 s, integer values (sums exact in any order), a reset at 7:00, new
    // explicit bounds at 11:00, a lowered exponential scale at 9:00, exemplars now and then.
    const start = T0 - 100n * S;
    const points = (make: (i: number) => Partial<RollupPoint>) =>
      Array.from({ length: 90 }, (_, i) =>
        point(i * 10, {
          startNs: i >= 42 ? start + S : start,
          traceIds: i % 17 === 0 ? [`t${i}`, `u${i}`] : [],
          ...make(i),
        }),
      );
    const cases: [SeriesKind, RollupPoint[]][] = [
      [CUMULATIVE, points((i) => ({ value: i >= 42 ? i - 42 : i * 3 }))],
      [UP_DOWN, points((i) => ({ value: (i * 7) % 13 }))],
      [GAUGE, points((i) => ({ value: (i * 5) % 11, startNs: 0n }))],
      [
        HISTOGRAM,
        points((i) => ({
          count: i * 3,
          sum: i * 10,
          min: 1,
          max: 9 + (i % 4),
          detail: { bounds: i >= 66 ? [1, 10] : [1, 5, 10], counts: i >= 66 ? [i, i, i] : [i, i, i, 0] },
        })),
      ],
      [
        EXPONENTIAL,
        points((i) => ({
          count: i * 2,
          sum: i,
          detail: {
            scale: i >= 54 ? 1 : 2,
            zeroCount: i,
            zeroThreshold: 0,
            positive: { offset: i >= 54 ? 2 : 4, bucketCounts: [i, i] },
            negative: { offset: 0, bucketCounts: [] },
          },
        })),
      ],
      [SUMMARY, points((i) => ({ count: i, sum: i * 2, detail: { quantiles: [[0.5, i]] } }))],
    ];
    for (const [series, all] of cases) {
      const [folded] = rollupPoints(series, null, all, [900]);
      const merged = mergeRows(series.kind, 900, Number(T0 / (900n * S)), minutes(series, all));
      expect(merged, series.kind).to.deep.equal(folded);
    }
  });
});
