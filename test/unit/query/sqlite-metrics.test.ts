import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricIdentity } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import {
  insertMetric,
  insertPoints,
  insertRollups,
  insertSeries,
  type PointRowSpec,
} from "../../helpers/metric-rows.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so every bucket and slot below starts at BASE plus a multiple of its width. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;

/** Counter A: started at -5 s, restarts at 55 s (new start time); counter B drops at 80 s (a reset without a new start). */
const A: PointRowSpec[] = Array.from({ length: 12 }, (_, k) =>
  k < 6
    ? { timeNs: at(10 * k), startNs: at(-5), value: 10 * (k + 1) }
    : { timeNs: at(10 * k), startNs: at(55), value: 3 * (k - 5) },
);
const B: PointRowSpec[] = Array.from({ length: 12 }, (_, k) => ({
  timeNs: at(10 * k),
  startNs: at(-5),
  value: k < 8 ? 100 + 5 * k : 2 + 5 * (k - 8),
}));

/** Each point's increase, as the stored-encoding rules state them (written independently of the reader). */
function increases(points: PointRowSpec[]): { timeNs: bigint; increase: number; reset: boolean }[] {
  return points.map((p, i) => {
    const prev = points[i - 1];
    const value = p.value as number;
    if (!prev) return { timeNs: p.timeNs, increase: value, reset: false };
    const reset = p.startNs !== prev.startNs || value < (prev.value as number);
    return { timeNs: p.timeNs, increase: reset ? value : value - (prev.value as number), reset };
  });
}

/** Sums of increases per bucket of `stepS` seconds from `fromS`, over points from `fromS` on. */
function perBucket(points: PointRowSpec[], fromS: number, stepS: number, buckets: number): number[] {
  const sums = Array.from({ length: buckets }, () => 0);
  for (const p of increases(points)) {
    const s = Number((p.timeNs - BASE) / S);
    if (s >= fromS) sums[Math.floor((s - fromS) / stepS)]! += p.increase;
  }
  return sums;
}

describe("SQLite metrics reader", () => {
  let store: ReturnType<typeof testStore>;
  let reader: SqliteReader;
  let readDb: ReturnType<typeof openReadConnection>;
  let counter: MetricIdentity;
  let gauge: MetricIdentity;

  beforeEach(() => {
    store = testStore();
    const db = store.db;
    const counterId = insertMetric(db, {
      name: "http.requests",
      kind: "sum",
      temporality: 2,
      monotonic: true,
      unit: "{request}",
    });
    const a = insertSeries(db, counterId, "api", { route: "/a" }, at(0), at(110));
    const b = insertSeries(db, counterId, "worker", { route: "/b" }, at(0), at(110));
    insertPoints(db, a, A);
    insertPoints(db, b, B);
    // The 60 s rollups of the same points, as the writer keeps them.
    for (const [series, points] of [
      [a, A],
      [b, B],
    ] as const) {
      const incs = increases(points);
      insertRollups(
        db,
        counterId,
        series,
        [0, 1].map((slot) => {
          const inSlot = incs.filter(
            (p) => Number((p.timeNs - BASE) / S) >= 60 * slot && Number((p.timeNs - BASE) / S) < 60 * (slot + 1),
          );
          return {
            widthS: 60,
            slot: Number(BASE / S / 60n) + slot,
            points: inSlot.length,
            firstNs: inSlot[0]!.timeNs,
            lastNs: inSlot[inSlot.length - 1]!.timeNs,
            increase: inSlot.reduce((x, p) => x + p.increase, 0),
            resets: inSlot.filter((p) => p.reset).length,
            exemplars: slot === 1 && series === a ? ["0af7651916cd43dd8448eb211c80319c"] : null,
          };
        }),
      );
    }
    const gaugeId = insertMetric(db, { name: "temperature", kind: "gauge", unit: "Cel" });
    const g1 = insertSeries(db, gaugeId, "api", { room: "x" }, at(0), at(30));
    const g2 = insertSeries(db, gaugeId, "api", { room: "y" }, at(0), at(30));
    insertPoints(
      db,
      g1,
      [5, 7, 3, 9].map((value, k) => ({ timeNs: at(10 * k), value })),
    );
    insertPoints(
      db,
      g2,
      [1, 1, 1, 2].map((value, k) => ({ timeNs: at(10 * k), value })),
    );
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
    counter = reader.metricIdentities("http.requests")[0]!;
    gauge = reader.metricIdentities("temperature")[0]!;
  });
  afterEach(() => {
    readDb.close();
    store.close();
  });

  const query = (over: Partial<MetricBucketQuery> & Pick<MetricBucketQuery, "metric" | "agg">): MetricBucketQuery => ({
    fromNs: at(0),
    toNs: at(119),
    attrs: [],
    stepMs: 30_000,
    source: { kind: "points" },
    groupBy: [],
    ...over,
  });
  const byKey = (groups: ReturnType<SqliteReader["metricBuckets"]>) =>
    Object.fromEntries(groups.map((g) => [g.key.join("|"), g]));

  it("finds a metric's identity by name, and none for an unknown name", () => {
    expect(counter).to.include({
      name: "http.requests",
      type: "sum",
      temporality: 2,
      monotonic: true,
      unit: "{request}",
    });
    expect(reader.metricIdentities("nope")).to.deep.equal([]);
  });

  it("turns cumulative points into per-bucket increases, counting resets from a new start and from a drop", () => {
    const groups = byKey(reader.metricBuckets(query({ metric: counter, agg: "increase", groupBy: ["service"] })));
    expect(groups.api!.values).to.deep.equal(perBucket(A, 0, 30, 4));
    expect(groups.worker!.values).to.deep.equal(perBucket(B, 0, 30, 4));
    expect(groups.api!.resets).to.equal(1);
    expect(groups.worker!.resets).to.equal(1);
    expect(groups.api!.series).to.equal(1);
  });

  it("measures the window's first increase from the series' point before it", () => {
    const groups = byKey(
      reader.metricBuckets(query({ metric: counter, agg: "increase", fromNs: at(30), groupBy: ["service"] })),
    );
    // Buckets from 30 s: the point at 30 s adds 40 - 30, not its whole value.
    expect(groups.api!.values).to.deep.equal(perBucket(A, 30, 30, 3));
    expect(groups.api!.values[0]).to.equal(10 + 10 + 10);
  });

  it("answers a rate per second of the step, over every series when ungrouped", () => {
    const [all] = reader.metricBuckets(query({ metric: counter, agg: "rate" }));
    const expected = perBucket(A, 0, 30, 4).map((v, i) => (v + perBucket(B, 0, 30, 4)[i]!) / 30);
    expect(all!.values.slice(0, 3)).to.deep.equal(expected.slice(0, 3));
    // The newest bucket is still open: it reads the rate now, over the five whole minutes before
    // the current one and the current one so far (-240 s to 119 s), which hold every point.
    const total = (points: PointRowSpec[]) => increases(points).reduce((x, p) => x + p.increase, 0);
    expect(all!.values[3]).to.be.closeTo((total(A) + total(B)) / 359, 1e-12);
    expect(all!.series).to.equal(2);
  });

  it("reads the 60 s rollups for a one-minute step, with the same answer as the points", () => {
    const fromRollups = reader.metricBuckets(
      query({
        metric: counter,
        agg: "increase",
        stepMs: 60_000,
        source: { kind: "rollups", widthS: 60 },
        groupBy: ["service"],
      }),
    );
    const fromPoints = reader.metricBuckets(
      query({ metric: counter, agg: "increase", stepMs: 60_000, groupBy: ["service"] }),
    );
    expect(byKey(fromRollups).api!.values).to.deep.equal(perBucket(A, 0, 60, 2));
    expect(byKey(fromRollups).api!.values).to.deep.equal(byKey(fromPoints).api!.values);
    expect(byKey(fromRollups).worker!.values).to.deep.equal(byKey(fromPoints).worker!.values);
    expect(byKey(fromRollups).api!.exemplars.map((exemplar) => exemplar.traceId)).to.deep.equal([
      "0af7651916cd43dd8448eb211c80319c",
    ]);
    expect(byKey(fromRollups).worker!.exemplars).to.deep.equal([]);
  });

  it("groups by a point attribute and filters by one", () => {
    const grouped = byKey(
      reader.metricBuckets(query({ metric: counter, agg: "increase", groupBy: [{ attr: "route" }] })),
    );
    expect(Object.keys(grouped).sort()).to.deep.equal(["/a", "/b"]);
    const filtered = reader.metricBuckets(query({ metric: counter, agg: "increase", attrs: [["route", "/b"]] }));
    expect(filtered).to.have.length(1);
    expect(filtered[0]!.values).to.deep.equal(perBucket(B, 0, 30, 4));
    expect(reader.metricBuckets(query({ metric: counter, agg: "increase", attrs: [["route", "/z"]] }))).to.deep.equal(
      [],
    );
  });

  it("aggregates gauges: last sums each series' newest value, avg, min and max over the points", () => {
    const q = (agg: MetricBucketQuery["agg"], toNs = at(39)) =>
      reader.metricBuckets(query({ metric: gauge, agg, toNs }))[0]!.values;
    expect(q("last")).to.deep.equal([3 + 1, 9 + 2]);
    // At 59 s both series, exporting every 10 s, have been silent for 29 s: past twice their
    // interval, they have no value now.
    expect(q("last", at(59))).to.deep.equal([3 + 1, null]);
    expect(q("avg")).to.deep.equal([(5 + 7 + 3 + 1 + 1 + 1) / 6, (9 + 2) / 2]);
    expect(q("min")).to.deep.equal([1, 2]);
    expect(q("max")).to.deep.equal([7, 9]);
    expect(q("sum")).to.deep.equal([18, 11]);
  });

  it("reads last's newest bucket as each series' value now, until twice its interval after its newest point", () => {
    // Two processes exporting a gauge every minute, 30 s apart; the second stops after 150 s.
    const id = insertMetric(store.db, { name: "queue.depth", kind: "gauge", unit: "{item}" });
    const early = insertSeries(store.db, id, "worker", { pod: "a" }, at(0), at(240));
    const late = insertSeries(store.db, id, "worker", { pod: "b" }, at(30), at(150));
    insertPoints(
      store.db,
      early,
      [0, 60, 120, 180, 240].map((s) => ({ timeNs: at(s), value: 100 + s })),
    );
    insertPoints(
      store.db,
      late,
      [30, 90, 150].map((s) => ({ timeNs: at(s), value: 1 + s })),
    );
    const metric = reader.metricIdentities("queue.depth")[0]!;
    const last = (fromS: number, toS: number) =>
      reader.metricBuckets(query({ metric, agg: "last", fromNs: at(fromS), toNs: at(toS) }))[0]!;
    const podA = (seconds: number) => 100 + seconds;
    // Older buckets: the values their series reported in them. The newest, open at now (160 s):
    // both processes' values now, though only b reported in it.
    expect(last(0, 160).values).to.deep.equal([podA(0), 31, podA(60), 91, podA(120), podA(120) + 151]);
    // At 255 s b's last point (150 s) is 105 s old, within twice its interval: still counted,
    // and its series too, though it has no point in the window.
    const shortWindow = last(200, 255);
    expect(shortWindow.values).to.deep.equal([podA(180), null, podA(240) + 151]);
    expect(shortWindow.series).to.equal(2);
    // At 299 s it is 149 s old: gone; a still reads its value of 240 s.
    expect(last(0, 299).values.at(-1)).to.equal(podA(240));
    // Well after both stopped: no value now, and no group.
    expect(reader.metricBuckets(query({ metric, agg: "last", fromNs: at(900), toNs: at(1000) }))).to.deep.equal([]);
  });

  it("answers gauge aggregations from one-minute rollups as from the points", () => {
    const slot = Number(BASE / S / 60n);
    const [x, y] = readDb
      .prepare("SELECT id FROM metric_series WHERE metric_id = ? ORDER BY id")
      .pluck()
      .all(gauge.id) as bigint[];
    const rollup = (values: number[]) => ({
      widthS: 60,
      slot,
      points: values.length,
      firstNs: at(0),
      lastNs: at(30),
      valueSum: values.reduce((a, b) => a + b, 0),
      valueMin: Math.min(...values),
      valueMax: Math.max(...values),
      valueLast: values[values.length - 1]!,
    });
    insertRollups(store.db, gauge.id, Number(x), [rollup([5, 7, 3, 9])]);
    insertRollups(store.db, gauge.id, Number(y), [rollup([1, 1, 1, 2])]);
    for (const agg of ["last", "avg", "min", "max", "sum"] as const) {
      const over = { metric: gauge, agg, stepMs: 60_000, toNs: at(59) };
      const fromRollups = reader.metricBuckets(query({ ...over, source: { kind: "rollups", widthS: 60 } }));
      expect(fromRollups[0]!.values, agg).to.deep.equal(reader.metricBuckets(query(over))[0]!.values);
    }
    expect(
      reader.metricBuckets(query({ metric: gauge, agg: "avg", stepMs: 60_000, toNs: at(59) }))[0]!.values,
    ).to.deep.equal([(24 + 5) / 8]);
  });

  it("interpolates histogram quantiles within buckets, from cumulative points' bucket increases", () => {
    const id = insertMetric(store.db, { name: "latency", kind: "histogram", temporality: 2, unit: "ms" });
    const series = insertSeries(store.db, id, "api", {}, at(0), at(10));
    insertPoints(store.db, series, [
      { timeNs: at(0), startNs: at(-1), count: 2, sum: 4, detail: { bounds: [1, 5, 10], counts: [1, 1, 0, 0] } },
      { timeNs: at(10), startNs: at(-1), count: 6, sum: 22, detail: { bounds: [1, 5, 10], counts: [1, 3, 2, 0] } },
    ]);
    const metric = reader.metricIdentities("latency")[0]!;
    const one = (agg: MetricBucketQuery["agg"]) =>
      reader.metricBuckets(query({ metric, agg, toNs: at(29) }))[0]!.values[0];
    // Increases [1, 1, 0, 0] then [0, 2, 2, 0]: [1, 3, 2, 0]; rank 3 of 6 lies 2/3 into (1, 5].
    expect(one("p50")).to.be.closeTo(1 + 4 * (2 / 3), 1e-9);
    // Rank 5.7 lies 0.85 into (5, 10].
    expect(one("p95")).to.be.closeTo(5 + 5 * 0.85, 1e-9);
    expect(one("count")).to.equal(6);
    expect(one("sum")).to.equal(22);
    expect(one("avg")).to.be.closeTo(22 / 6, 1e-9);
  });

  it("answers a summary's quantile from the quantile it reported", () => {
    const id = insertMetric(store.db, { name: "rpc.duration", kind: "summary", unit: "ms" });
    const series = insertSeries(store.db, id, "api", {}, at(0), at(10));
    insertPoints(store.db, series, [
      {
        timeNs: at(0),
        startNs: at(-1),
        count: 4,
        sum: 10,
        detail: {
          quantiles: [
            [0.5, 2],
            [0.95, 7],
          ],
        },
      },
      {
        timeNs: at(10),
        startNs: at(-1),
        count: 10,
        sum: 40,
        detail: {
          quantiles: [
            [0.5, 3],
            [0.95, 9],
          ],
        },
      },
    ]);
    const metric = reader.metricIdentities("rpc.duration")[0]!;
    const one = (agg: MetricBucketQuery["agg"]) =>
      reader.metricBuckets(query({ metric, agg, toNs: at(29) }))[0]!.values[0];
    expect(one("p95")).to.equal(9);
    expect(one("p99")).to.equal(null);
    expect(one("count")).to.equal(10);
    expect(one("avg")).to.equal(4);
  });

  it("lists metrics by name in pages, with services, series and points", () => {
    const window = { fromNs: at(0), toNs: at(119) };
    const first = reader.metrics({ page: { ...window, limit: 1 } });
    expect(first.items.map((m) => m.name)).to.deep.equal(["http.requests"]);
    expect(first.items[0]).to.deep.include({
      type: "sum",
      temporality: "cumulative",
      monotonic: true,
      services: ["api", "worker"],
      seriesCount: 2,
      pointCount: 24,
    });
    expect(first.more).to.equal(true);
    const second = reader.metrics({ page: { ...window, limit: 1, after: first.last! } });
    expect(second.items.map((m) => m.name)).to.deep.equal(["temperature"]);
    expect(second.more).to.equal(false);
    expect(reader.metrics({ name: "temp", page: { ...window, limit: 10 } }).items.map((m) => m.name)).to.deep.equal([
      "temperature",
    ]);
    expect(
      reader.metrics({ service: "worker", page: { ...window, limit: 10 } }).items.map((m) => m.name),
    ).to.deep.equal(["http.requests"]);
  });

  it("describes a metric's attribute keys and values with series counts", () => {
    const detail = reader.describeMetric({ metric: counter, fromNs: at(0), toNs: at(119), attrs: [] }, 10, 1);
    expect(detail!.seriesCount).to.equal(2);
    expect(detail!.attributes).to.deep.equal([{ key: "route", values: [{ value: "/a", series: 1 }], more: true }]);
    expect(reader.describeMetric({ metric: counter, fromNs: at(500), toNs: at(600), attrs: [] }, 10, 1)).to.equal(null);
  });

  it("counts facets of metrics in series", () => {
    const window = { fromNs: at(0), toNs: at(119) };
    expect(reader.facets({ type: "metrics", field: "name" }, window, 10)).to.deep.equal([
      { value: "http.requests", count: 2 },
      { value: "temperature", count: 2 },
    ]);
    expect(reader.facets({ type: "metrics", field: "attribute_values", key: "route" }, window, 10)).to.deep.equal([
      { value: "/a", count: 1 },
      { value: "/b", count: 1 },
    ]);
    expect(reader.facets({ type: "metrics", field: "service" }, window, 10)).to.deep.equal([
      { value: "api", count: 3 },
      { value: "worker", count: 1 },
    ]);
  });
});
