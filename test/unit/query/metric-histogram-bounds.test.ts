import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;

/** A delta histogram's point of pod `pod`: `counts` in the buckets of `bounds`. */
const histogram = (pod: string, t: number, bounds: number[], counts: number[]) =>
  metricPoint({
    name: "latency",
    kind: "histogram",
    temporality: 1,
    monotonic: false,
    timeNs: at(t),
    startNs: at(t - 10),
    value: null,
    count: counts.reduce((a, b) => a + b, 0),
    sum: 1,
    bounds,
    bucketCounts: counts,
    attributes: JSON.stringify({ pod }),
  });

/** Pod a measures in fine buckets, pod b (another SDK's defaults) in coarse ones. */
const FINE = [0.005, 0.01, 0.025, 0.05];
const COARSE = [1, 2.5, 5];
const points = (pod: string) =>
  [0, 10, 20, 30].map((t) =>
    pod === "a" ? histogram("a", t, FINE, [0, 4, 4, 0, 0]) : histogram("b", t, COARSE, [0, 2, 2, 0]),
  );

/**
 * The ungrouped values of `latency` over its first minute, per agg, from a store written with
 * `batches` (one request each, in order) and read on a connection of its own.
 */
function latencyValues(
  batches: MetricPointRecord[][],
  aggs: ("p50" | "p99")[],
  stepS: number,
  source: MetricSource,
  toS = 59,
  receivedS = 60,
): (number | null)[][] {
  const store = testStore(0, at(-3600));
  try {
    for (const batch of batches) {
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", batch), at(receivedS)));
    }
    store.writer.writeHeld();
    const db = openReadConnection(store.path);
    try {
      const reader = new SqliteReader(db);
      return aggs.map(
        (agg) =>
          reader.metricBuckets({
            metric: reader.metricIdentities("latency")[0]!,
            agg,
            fromNs: at(0),
            toNs: at(toS),
            attrs: [],
            stepMs: stepS * 1000,
            source,
            groupBy: [],
          })[0]?.values ?? [],
      );
    } finally {
      db.close();
    }
  } finally {
    store.close();
  }
}

/** The group's p50 and p99 over both pods, with the pods' series created in `order`. */
function quantiles(order: string[], stepS: number, source: MetricSource): (number | null)[][] {
  // Each pod's series is created by its first point: the order decides which has the lower id.
  return latencyValues(order.map(points), ["p50", "p99"], stepS, source);
}

/**
 * Series of one histogram with other explicit bounds are merged onto all their bounds, each
 * bucket at its own upper bound: a group's quantile does not depend on which series is older,
 * and the rollups and the points answer alike.
 */
describe("histograms of one name with other explicit bounds across series", () => {
  for (const [what, stepS, source] of [
    ["the minute rollups", 60, { kind: "rollups", widthS: 60 }],
    ["the points", 30, { kind: "points" }],
  ] as [string, number, MetricSource][]) {
    it(`give a group's quantiles whatever series is older, from ${what}`, () => {
      const ab = quantiles(["a", "b"], stepS, source);
      expect(quantiles(["b", "a"], stepS, source)).to.deep.equal(ab);
      // 32 fine observations under 25 ms and 16 coarse ones over 1 s: the median is a fine one,
      // the 99th percentile a coarse one.
      for (const p50 of ab[0]!) expect(p50).to.be.within(0.005, 0.025);
      for (const p99 of ab[1]!) expect(p99).to.be.within(1, 5);
    });
  }

  it("answers alike from the rollups and from the points", () => {
    const rollups = quantiles(["a", "b"], 60, { kind: "rollups", widthS: 60 });
    const pointsAnswer = quantiles(["a", "b"], 60, { kind: "points" });
    expect(pointsAnswer).to.deep.equal(rollups);
  });
});

/**
 * A quantile interpolated over its whole bucket can pass the observations' recorded extremes (a
 * bucket (64, 128] whose observations all lie at or under 100): the bucket is interpolated over
 * its part within the group's min and max where the points carry them.
 */
describe("histogram quantiles and the recorded min and max", () => {
  const base = { name: "latency", temporality: 1, monotonic: false, value: null, count: 100, sum: 9_000 };
  const explicit = (t: number) =>
    metricPoint({
      ...base,
      kind: "histogram",
      timeNs: at(t),
      startNs: at(t - 10),
      bounds: [50, 200],
      bucketCounts: [0, 100, 0],
      min: 80,
      max: 100,
    });
  // Scale 0: bucket index 6 is (64, 128].
  const exponential = (t: number) =>
    metricPoint({
      ...base,
      kind: "exponential_histogram",
      timeNs: at(t),
      startNs: at(t - 10),
      exponential: {
        scale: 0,
        zeroCount: 0,
        zeroThreshold: 0,
        positive: { offset: 6, bucketCounts: [100] },
        negative: { offset: 0, bucketCounts: [] },
      },
      min: 80,
      max: 100,
    });

  const values = (make: (t: number) => MetricPointRecord, agg: "p50" | "p99", stepS: number, source: MetricSource) =>
    (latencyValues([[0, 10, 20, 30].map(make)], [agg], stepS, source)[0] ?? []).filter((value) => value !== null);

  it("holds nothing within the range of some series when others of the group recorded none", () => {
    // Pods a and b count 100 observations a point in (50, 200]; a records its min and max (80,
    // 100), b neither: b's may lie anywhere in the bucket.
    const pod = (name: string, bounded: boolean) => (t: number) => ({
      ...explicit(t),
      ...(bounded ? {} : { min: null, max: null }),
      attributes: JSON.stringify({ pod: name }),
    });
    const both = (t: number) => [pod("a", true)(t), pod("b", false)(t)];
    for (const [stepS, source] of [
      [60, { kind: "rollups", widthS: 60 }],
      [30, { kind: "points" }],
    ] as [number, MetricSource][]) {
      const [p99] = latencyValues([[0, 10, 20, 30].flatMap(both)], ["p99"], stepS, source);
      // Interpolated in (50, 200]: near its top, not held at a's max of 100.
      expect(p99?.filter((v) => v !== null)).to.not.be.empty;
      for (const value of p99?.filter((v) => v !== null) ?? []) expect(value).to.be.above(190);
    }
  });

  it("reads a cumulative series' later increases within its min and max since its start, alike from both", () => {
    // A cumulative point's min and max hold since the series' start: the second minute's 20 new
    // observations lie under 1, but the range the points carry is still 0.1 to 4.
    const cumulative = (t: number, count: number) =>
      metricPoint({
        ...base,
        temporality: 2,
        kind: "histogram",
        timeNs: at(t),
        startNs: at(-10),
        count,
        bounds: [0, 5],
        bucketCounts: [0, count, 0],
        min: 0.1,
        max: 4,
      });
    const twoMinutes = (source: MetricSource) =>
      latencyValues([[cumulative(5, 10), cumulative(65, 30)]], ["p50"], 60, source, 119);
    const rollups = twoMinutes({ kind: "rollups", widthS: 60 });
    expect(rollups).to.deep.equal(twoMinutes({ kind: "points" }));
    // The first point counts whole (started after the collector); each minute's median lies halfway through the range.
    expect(rollups[0]).to.have.length(2);
    for (const p50 of rollups[0] ?? []) expect(p50).to.be.closeTo(0.1 + 0.5 * 3.9, 1e-9);
  });

  it("holds nothing for a series whose points carry them only in part, alike from the rollups and the points", () => {
    // One point of four without min and max (an SDK restarted with them off): its 100
    // observations may lie anywhere in (50, 200], so the minute's range is unknown. The minute's
    // rollup row kept the other points' range, and read a median of 80 where the points read 125.
    const ranges: [number | null, number | null][] = [
      [80, 100],
      [null, null],
      [60, 90],
      [85, 95],
    ];
    const mixed = [0, 10, 20, 30].map((t, i) => ({
      ...explicit(t),
      min: ranges[i]?.[0] ?? null,
      max: ranges[i]?.[1] ?? null,
    }));
    const minute = (source: MetricSource) => latencyValues([mixed], ["p50", "p99"], 60, source);
    const rollups = minute({ kind: "rollups", widthS: 60 });
    expect(rollups).to.deep.equal(minute({ kind: "points" }));
    expect(rollups[0]?.[0]).to.be.closeTo(125, 1e-9);
  });

  it("keeps the range past a point of an empty interval, which came without min and max, alike from both", () => {
    // A delta point counting no observation carries no min and max (there are none): it leaves
    // the others' range standing, before or after them, explicit or exponential. It read a
    // median of 125 over (50, 200], all of whose observations lie from 80 to 100.
    const empty = (point: MetricPointRecord): MetricPointRecord => ({
      ...point,
      count: 0,
      sum: 0,
      min: null,
      max: null,
      bucketCounts: point.bucketCounts?.map(() => 0) ?? null,
      ...(point.exponential
        ? { exponential: { ...point.exponential, positive: { offset: 6, bucketCounts: [0] } } }
        : {}),
    });
    for (const make of [explicit, exponential]) {
      for (const emptyAt of [0, 30]) {
        const mixed = [0, 10, 20, 30].map((t) => (t === emptyAt ? empty(make(t)) : make(t)));
        const minute = (source: MetricSource) => latencyValues([mixed], ["p50", "p99"], 60, source);
        const rollups = minute({ kind: "rollups", widthS: 60 });
        expect(rollups).to.deep.equal(minute({ kind: "points" }));
        for (const [value] of rollups) expect(value).to.be.within(80, 100);
      }
    }
  });

  it("keeps the range of fifteen minutes past a minute of empty intervals only, from their rollup and points alike", () => {
    // The 900 s row is merged from the minutes' rows: the first minute's counts no observation
    // and has no range, which is no unknown range. A point 20 minutes on closes the slot.
    const empty = (t: number): MetricPointRecord => ({
      ...explicit(t),
      count: 0,
      sum: 0,
      min: null,
      max: null,
      bucketCounts: [0, 0, 0],
    });
    const times = Array.from({ length: 90 }, (_, i) => i * 10);
    const points = times.map((t) => (t < 60 ? empty(t) : explicit(t)));
    const slot = (source: MetricSource) =>
      latencyValues([points, [explicit(1210)]], ["p50", "p99"], 900, source, 899, 1220);
    const rollups = slot({ kind: "rollups", widthS: 900 });
    expect(rollups).to.deep.equal(slot({ kind: "points" }));
    for (const [value] of rollups) expect(value).to.be.within(80, 100);
  });

  for (const [kind, make] of [
    ["explicit", explicit],
    ["exponential", exponential],
  ] as const) {
    for (const [what, stepS, source] of [
      ["the minute rollups", 60, { kind: "rollups", widthS: 60 }],
      ["the points", 30, { kind: "points" }],
    ] as [string, number, MetricSource][]) {
      it(`keeps ${kind} buckets' p99 at or under the max and p50 at or over the min, from ${what}`, () => {
        const p99 = values(make, "p99", stepS, source);
        expect(p99).to.not.be.empty;
        for (const value of p99) expect(value).to.be.within(80, 100);
        // Not pinned to the max: interpolated over the part of the bucket from 80 to 100, linearly
        // for explicit bounds, geometrically at an exponential histogram's scale.
        const median = kind === "explicit" ? 90 : 80 * (100 / 80) ** 0.5;
        const p50 = values(make, "p50", stepS, source);
        expect(p50).to.not.be.empty;
        for (const value of p50) expect(value).to.be.closeTo(median, 1e-9);
      });
    }
  }
});
