import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import type { MetricBucketQuery, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore, onlyGroup } from "../../helpers/metric-reader.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so every bucket below starts at BASE plus a multiple of its step. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
/** OTLP's DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK: what a collector's Prometheus receiver sends for a stale series. */
const NO_RECORDED_VALUE = 1;

/** A cumulative counter started long before the collector (its first point is the baseline). */
const counter = (t: number, value: number, flags = 0): MetricPointRecord =>
  metricPoint({ name: "requests", timeNs: at(t), startNs: at(-7200), value, flags });
const gauge = (t: number, value: number): MetricPointRecord =>
  metricPoint({ name: "temperature", kind: "gauge", temporality: 0, monotonic: false, timeNs: at(t), value });

const SOURCES: [string, number, MetricSource][] = [
  ["the minute rollups", 60, { kind: "rollups", widthS: 60 }],
  ["the points, a minute a bucket", 60, { kind: "points" }],
];

/**
 * Points without a value (a staleness marker, a NaN) are stored and skipped by every query
 * path alike: the increase across one is the growth between the points around it, no reset,
 * and a gauge's minute keeps its other points' figures.
 */
describe("metric queries over points without a recorded value", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const points = [
      counter(0, 1000),
      counter(10, 1010),
      counter(20, 1020),
      counter(30, 1030),
      counter(40, Number.NaN, NO_RECORDED_VALUE),
      counter(60, 1060),
      counter(70, 1070),
      counter(130, 1130),
      gauge(0, 5),
      gauge(10, 1),
      gauge(20, Number.NaN),
      gauge(30, 7),
      gauge(40, 5),
    ];
    fixture = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(180))),
    );
  });
  afterEach(() => fixture.close());

  const read = (name: string, agg: MetricBucketQuery["agg"], stepS: number, source: MetricSource) => {
    const group = onlyGroup(fixture.reader, name, { agg, fromNs: at(0), toNs: at(179), stepMs: stepS * 1000, source });
    return { values: group?.values, resets: group?.resets };
  };

  it("takes a window's first increase from the point before it that had a value, past a marker", () => {
    // The window starts at 50 s, after the marker at 40 s: 1060 grew 30 since 1030, at 30 s.
    const { reader } = fixture;
    const [group] = reader.metricBuckets({
      metric: reader.metricIdentities("requests")[0]!,
      agg: "increase",
      fromNs: at(50),
      toNs: at(79),
      attrs: [],
      stepMs: 10_000,
      source: { kind: "points" },
      groupBy: [],
    });
    expect(group?.values).to.deep.equal([null, 30, 10]);
  });

  for (const [what, stepS, source] of SOURCES) {
    it(`a counter's increase spans a staleness marker with no reset, from ${what}`, () => {
      // 30 in the first minute past the baseline; 1030 to 1060 across the marker, then 10; 60.
      const { values, resets } = read("requests", "increase", stepS, source);
      expect(values).to.deep.equal([30, 40, 60]);
      expect(resets).to.equal(0);
    });

    it(`a gauge's minute leaves out its NaN point, from ${what}`, () => {
      expect(read("temperature", "min", stepS, source).values?.[0]).to.equal(1);
      expect(read("temperature", "max", stepS, source).values?.[0]).to.equal(7);
      expect(read("temperature", "avg", stepS, source).values?.[0]).to.equal((5 + 1 + 7 + 5) / 4);
    });
  }
});

/**
 * A Prometheus summary with no recent observations reports NaN quantiles (stored as JSON null):
 * that series has no quantile, so a group's is its other series', not pulled toward 0.
 */
describe("a summary's NaN quantile", () => {
  it("counts as no quantile: the group's is the other series', the series alone has none", () => {
    const summary = (pod: string, t: number, count: number, p95: number) =>
      metricPoint({
        name: "latency",
        kind: "summary",
        temporality: 0,
        monotonic: false,
        timeNs: at(t),
        startNs: at(-7200),
        value: null,
        count,
        sum: count * 0.05,
        quantiles: [[0.95, p95]],
        attributes: JSON.stringify({ pod }),
      });
    const points = [0, 10, 20, 30].flatMap((t) => [summary("a", t, 100, 0.1), summary("b", t, 50, Number.NaN)]);
    const { reader, close } = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(60))),
    );
    try {
      for (const [stepS, source] of [
        [60, { kind: "rollups", widthS: 60 }],
        [30, { kind: "points" }],
      ] as [number, MetricSource][]) {
        const read = (groupBy: MetricBucketQuery["groupBy"]) =>
          reader.metricBuckets({
            metric: reader.metricIdentities("latency")[0]!,
            agg: "p95",
            fromNs: at(0),
            toNs: at(59),
            attrs: [],
            stepMs: stepS * 1000,
            source,
            groupBy,
          });
        const [all] = read([]);
        expect(all?.values).to.deep.equal(new Array(60 / stepS).fill(0.1));
        const byPod: Record<string, (number | null)[]> = Object.fromEntries(
          read([{ attr: "pod" }]).map((g) => [g.key[0], g.values]),
        );
        expect(byPod.a).to.deep.equal(new Array(60 / stepS).fill(0.1));
        expect(byPod.b).to.deep.equal(new Array(60 / stepS).fill(null));
      }
    } finally {
      close();
    }
  });
});
