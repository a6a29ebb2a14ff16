import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { NO_RECORDED_VALUE } from "../../../daemon/store/metric-rollup.js";
import { Retention } from "../../../daemon/store/retention.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

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

/**
 * A series' first point counts whole only when its process started at or after the collector:
 * the writer decides it when it creates the series, and both the rollups and the raw-point
 * query follow it.
 */
describe("a cumulative series' first point, by when its process started", () => {
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;
  let reader: SqliteReader;

  beforeEach(() => {
    store = testStore(0, COLLECTOR_START);
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
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
    store.writer.writeHeld();
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  afterEach(() => {
    readDb?.close();
    store.close();
  });

  const increases = (over: Partial<MetricBucketQuery>) => {
    const groups = increasesOf(reader, { groupBy: [{ attr: "route" }], ...over });
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
    const series = store.db.prepare("SELECT attributes, first_whole FROM metric_series ORDER BY id").raw().all() as [
      string,
      bigint,
    ][];
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
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;

  beforeEach(() => {
    store = testStore(0, COLLECTOR_START);
    // Started after the collector, so its first point counts whole: 5, then 10 every 10 s.
    const points = [5, 15, 25, 35, 45, 55].map((value, k) =>
      metricPoint({ timeNs: at(10 * k), startNs: COLLECTOR_START + S / 2n, value, attributes: '{"route":"/new"}' }),
    );
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
    store.writer.writeHeld();
    // An hour's retention, an hour and 25 s after the first point: the points at 0, 10 and 20 s go.
    const retention = new Retention(store.db, { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, batchRows: 1000 });
    expect(retention.trimByAge(at(3_625))).to.include({ points: 3 });
    readDb = openReadConnection(store.path);
  });
  afterEach(() => {
    readDb?.close();
    store.close();
  });

  it("counts nothing for it in a window that starts before the cutoff, as for a series seen mid-life", () => {
    const [group] = increasesOf(new SqliteReader(readDb), {});
    // It had counted its whole 35 in its bucket: everything the process counted since it started.
    expect(group?.values).to.deep.equal([null, null, null, 0, 10, 10]);
  });
});

describe("a late point after retention deleted a series' first points", () => {
  it("refolds the minute of the first point kept with it as the baseline, rollups and points alike", () => {
    const store = testStore(0, COLLECTOR_START);
    const point = (seconds: number, value: number) =>
      metricPoint({ timeNs: at(seconds), startNs: COLLECTOR_START + S / 2n, value, attributes: '{"route":"/new"}' });
    try {
      // 5, then 10 more every 10 s, from 0 to 170 s.
      const points = Array.from({ length: 18 }, (_, k) => point(10 * k, 5 + 10 * k));
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
      store.writer.writeHeld();
      // The cutoff is 125 s: the points from 0 to 120 s go, 130 s is the first kept.
      const retention = new Retention(store.db, { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, batchRows: 1000 });
      expect(retention.trimByAge(at(3_725))).to.include({ points: 13 });
      // Late, in the minute of the first point kept: the writer refolds that minute from the points.
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", [point(135, 140)]), 0n));
      store.writer.writeHeld();
      const readDb = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(readDb);
        const minute = (source: MetricBucketQuery["source"]) =>
          increasesOf(reader, { fromNs: at(120), toNs: at(179), stepMs: 60_000, source })[0]?.values;
        // 135, 140, 145, 155, 165, 175: 40 from the first kept. Counted whole, 175.
        expect(minute({ kind: "points" })).to.deep.equal([40]);
        expect(minute({ kind: "rollups", widthS: 60 })).to.deep.equal([40]);
      } finally {
        readDb.close();
      }
    } finally {
      store.close();
    }
  });
});

describe("retention deleting only a first point without a recorded value", () => {
  it("keeps the series' first recorded point counted whole: the baseline it deleted had none", () => {
    const store = testStore(0, COLLECTOR_START);
    const point = (seconds: number, value: number, flags = 0) =>
      metricPoint({ timeNs: at(seconds), startNs: COLLECTOR_START + S / 2n, value, flags, attributes: "{}" });
    try {
      // A marker without a value (NO_RECORDED_VALUE), then 15 and 25.
      const points = [point(0, 0, NO_RECORDED_VALUE), point(10, 15), point(20, 25)];
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
      store.writer.writeHeld();
      const readDb = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(readDb);
        const before = increasesOf(reader, {})[0]?.values;
        expect(before).to.deep.equal([null, 15, 10, null, null, null]);
        const retention = new Retention(store.db, { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, batchRows: 1000 });
        expect(retention.trimByAge(at(3_605))).to.include({ points: 1 });
        expect(increasesOf(reader, {})[0]?.values).to.deep.equal(before);
      } finally {
        readDb.close();
      }
    } finally {
      store.close();
    }
  });
});
