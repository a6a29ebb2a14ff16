import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import type { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery } from "../../../daemon/query/telemetry-reader.js";
import { NO_RECORDED_VALUE } from "../../../daemon/store/metric-rollup.js";
import { Retention } from "../../../daemon/store/retention.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore } from "../../helpers/metric-reader.js";
import type { TestStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so buckets and slots line up. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
/** The collector started just before the points: BASE - 1 s. */
const COLLECTOR_START = at(-1);

/** The increases of "requests" per group and bucket: from the raw points, 10 s buckets of the first minute, unless `over` says otherwise. */
function increasesOf(reader: SqliteReader, over: Partial<MetricBucketQuery>) {
  return reader.metricBuckets({
    metric: reader.metricIdentities("requests")[0]!,
    agg: "increase",
    fromNs: at(0),
    toNs: at(59),
    attrs: [],
    stepMs: 10_000,
    source: { kind: "points" },
    groupBy: [],
    ...over,
  });
}

/** Writes `points` of service "api" in one transaction, then what the writer holds. */
function write(store: TestStore, points: MetricPointRecord[]): void {
  store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
  store.writer.writeHeld();
}

/** A pass of an hour's age retention at `nowNs`. */
function trimAt(store: TestStore, nowNs: bigint) {
  return new Retention(store.db, { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, batchRows: 1000 }).trimByAge(nowNs);
}

/** A point of a counter whose process started after the collector, so its first point counts whole. */
const startedAfter = (seconds: number, value: number, flags = 0) =>
  metricPoint({ timeNs: at(seconds), startNs: COLLECTOR_START + S / 2n, value, flags, attributes: '{"route":"/new"}' });

/**
 * A series' first point counts whole only when its process started at or after the collector:
 * the writer decides it when it creates the series, and both the rollups and the raw-point
 * query follow it.
 */
describe("a cumulative series' first point, by when its process started", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const counter = (route: string, startNs: bigint, values: number[]) =>
      values.map((value, k) =>
        metricPoint({ timeNs: at(10 * k), startNs, value, attributes: JSON.stringify({ route }) }),
      );
    const points = [
      // Started a day before the collector: its lifetime count is the baseline.
      ...counter("/old", at(-86_400), [1_000_000, 1_000_010, 1_000_020]),
      // Started after the collector: every request it counted is new.
      ...counter("/new", COLLECTOR_START + S / 2n, [5, 15, 25]),
      // Recorded and exported at its start (a short-lived process): whole.
      ...counter("/brief", at(0), [3]),
    ];
    fixture = metricReadStore(COLLECTOR_START, (store) => write(store, points));
  });
  afterEach(() => fixture.close());

  const increases = (over: Partial<MetricBucketQuery>) => {
    const groups = increasesOf(fixture.reader, { groupBy: [{ attr: "route" }], ...over });
    return Object.fromEntries(groups.map((g) => [g.key.join("|"), g.values]));
  };

  it("counts it whole from the raw points only for a process started at or after the collector", () => {
    const answer = increases({});
    expect(answer["/old"]).to.deep.equal([0, 10, 10, null, null, null]);
    expect(answer["/new"]).to.deep.equal([5, 10, 10, null, null, null]);
    expect(answer["/brief"]).to.deep.equal([3, null, null, null, null, null]);
  });

  it("gives the same answer from the 60 s rollups", () => {
    const answer = increases({ stepMs: 60_000, source: { kind: "rollups", widthS: 60 } });
    expect(answer).to.deep.equal({ "/old": [20], "/new": [25], "/brief": [3] });
    const series = fixture.store.db
      .prepare("SELECT attributes, first_whole FROM metric_series ORDER BY id")
      .raw()
      .all() as [string, bigint][];
    expect(series).to.deep.equal([
      ['{"route":"/old"}', 0n],
      ['{"route":"/new"}', 1n],
      ['{"route":"/brief"}', 1n],
    ]);
  });
});

/**
 * Once retention deleted a series' first points, the first point it kept is not the series'
 * first: what it counted before accrued when the deleted points were sent, however long ago.
 */
describe("a cumulative series' first point kept by retention", () => {
  it("counts nothing for it in a window that starts before the cutoff, as for a series seen mid-life", () => {
    // 5, then 10 every 10 s. An hour's retention, an hour and 25 s after the first point: the
    // points at 0, 10 and 20 s go.
    const { reader, close } = metricReadStore(COLLECTOR_START, (store) => {
      write(
        store,
        [5, 15, 25, 35, 45, 55].map((value, k) => startedAfter(10 * k, value)),
      );
      expect(trimAt(store, at(3_625))).to.include({ points: 3 });
    });
    try {
      const [group] = increasesOf(reader, {});
      // It had counted its whole 35 in its bucket: everything the process counted since it started.
      expect(group?.values).to.deep.equal([null, null, null, 0, 10, 10]);
    } finally {
      close();
    }
  });

  it("refolds the minute of the first point kept with it as the baseline after a late point, rollups and points alike", () => {
    const { reader, close } = metricReadStore(COLLECTOR_START, (store) => {
      // 5, then 10 more every 10 s, from 0 to 170 s.
      write(
        store,
        Array.from({ length: 18 }, (_, k) => startedAfter(10 * k, 5 + 10 * k)),
      );
      // The cutoff is 125 s: the points from 0 to 120 s go, 130 s is the first kept.
      expect(trimAt(store, at(3_725))).to.include({ points: 13 });
      // Late, in the minute of the first point kept: the writer refolds that minute from the points.
      write(store, [startedAfter(135, 140)]);
    });
    try {
      const minute = (source: MetricBucketQuery["source"]) =>
        increasesOf(reader, { fromNs: at(120), toNs: at(179), stepMs: 60_000, source })[0]?.values;
      // 135, 140, 145, 155, 165, 175: 40 from the first kept. Counted whole, 175.
      expect(minute({ kind: "points" })).to.deep.equal([40]);
      expect(minute({ kind: "rollups", widthS: 60 })).to.deep.equal([40]);
    } finally {
      close();
    }
  });

  it("keeps the series' first recorded point counted whole when it deleted only a point without a value", () => {
    // A marker without a value (NO_RECORDED_VALUE), then 15 and 25.
    const { store, reader, close } = metricReadStore(COLLECTOR_START, (store) =>
      write(store, [startedAfter(0, 0, NO_RECORDED_VALUE), startedAfter(10, 15), startedAfter(20, 25)]),
    );
    try {
      const before = increasesOf(reader, {})[0]?.values;
      expect(before).to.deep.equal([null, 15, 10, null, null, null]);
      expect(trimAt(store, at(3_605))).to.include({ points: 1 });
      expect(increasesOf(reader, {})[0]?.values).to.deep.equal(before);
    } finally {
      close();
    }
  });
});
