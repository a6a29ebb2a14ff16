import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { rollupPoints } from "../../../daemon/store/metric-rollup.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { insertMetric, insertPoints, insertRollups, insertSeries } from "../../helpers/metric-rows.js";
import { testStore } from "../../helpers/store.js";

/**
 * Histogram buckets and exemplars of the SQLite metrics reader: the rollups (as the writer
 * folds them, metric-rollup.ts) and the raw points give the same answer, over a real store file.
 */
const S = 1_000_000_000n;
/** A multiple of 900 s, so every bucket and slot below starts at BASE plus a multiple of its width. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;

describe("SQLite metrics reader: buckets and exemplars", () => {
  let store: ReturnType<typeof testStore>;
  let reader: SqliteReader;
  let readDb: ReturnType<typeof openReadConnection>;

  beforeEach(() => {
    store = testStore();
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
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

  it("carries an exponential histogram's counts across a lowered scale, from the rollups as from the points", () => {
    const id = insertMetric(store.db, { name: "sizes", kind: "exponential_histogram", temporality: 2, unit: "By" });
    const series = insertSeries(store.db, id, "api", {}, at(0), at(120));
    const exp = (seconds: number, scale: number, offset: number, counts: number[]) => ({
      timeNs: at(seconds),
      startNs: at(-1),
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
    // Scale 2 indexes 4 and 5 are scale 1 index 2; a value at scale 1 index 5 lowered the scale.
    const points = [exp(0, 2, 4, [50, 50]), exp(60, 1, 2, [100, 0, 0, 1]), exp(120, 1, 2, [100, 0, 0, 2])];
    insertPoints(store.db, series, points);
    // The 60 s rollups as the writer folds them (metric-rollup.ts).
    const kind = { kind: "exponential_histogram", temporality: 2, monotonic: false, firstWhole: true } as const;
    const rollupInput = points.map((p) => ({
      timeNs: p.timeNs,
      startNs: p.startNs,
      value: null,
      count: p.count,
      sum: p.sum,
      min: null,
      max: null,
      detail: p.detail,
      traceIds: [],
      flags: 0,
    }));
    insertRollups(
      store.db,
      id,
      series,
      rollupPoints(kind, null, rollupInput, [60]).map((row) => ({ ...row, buckets: row.buckets ?? undefined })),
    );
    const metric = reader.metricIdentities("sizes")[0]!;
    const ask = (agg: MetricBucketQuery["agg"], over: Partial<MetricBucketQuery>) =>
      reader.metricBuckets(query({ metric, agg, toNs: at(179), ...over }))[0]!;
    const minute = { stepMs: 60_000 };
    const rolled = { stepMs: 60_000, source: { kind: "rollups", widthS: 60 } } as const;
    expect(ask("count", rolled).values).to.deep.equal([100, 1, 1]);
    expect(ask("count", rolled).resets).to.equal(0);
    expect(ask("count", minute).values).to.deep.equal([100, 1, 1]);
    expect(ask("count", minute).resets).to.equal(0);
    expect(ask("count", {}).values).to.deep.equal([100, null, 1, null, 1, null]);
    // The one new value, alone in its minute: scale 1 index 5 is (2^2.5, 2^3], its median 2^2.75.
    const p50 = ask("p50", rolled).values;
    expect(p50[1]).to.be.closeTo(2 ** 2.75, 1e-9);
    expect(ask("p50", minute).values).to.deep.equal(p50);
  });

  it("keeps a filtered query's exemplars when other services' newer exemplars pass the row cap", () => {
    const id = insertMetric(store.db, { name: "jobs", kind: "sum", temporality: 1, monotonic: true });
    const slot = Number(BASE / S / 60n);
    const withExemplar = (series: number, seconds: number, traceId: string) => {
      insertPoints(store.db, series, [{ timeNs: at(seconds), value: 1, exemplars: [{ traceId, value: 1 }] }]);
      insertRollups(store.db, id, series, [
        { widthS: 60, slot, points: 1, firstNs: at(seconds), lastNs: at(seconds), increase: 1, exemplars: [traceId] },
      ]);
    };
    const mine = "a".repeat(32);
    withExemplar(insertSeries(store.db, id, "api", { k: "v" }, at(10), at(10)), 10, mine);
    // More series of another service than the exemplar rows a query reads, each newer than api's.
    for (let i = 0; i < 1001; i++) {
      withExemplar(
        insertSeries(store.db, id, "worker", { n: String(i) }, at(50), at(50)),
        50,
        i.toString(16).padStart(32, "0"),
      );
    }
    const metric = reader.metricIdentities("jobs")[0]!;
    const rolled = (stepMs: number) => ({ stepMs, source: { kind: "rollups", widthS: 60 } }) as const;
    for (const [name, over] of [
      ["points", {}],
      ["slot rollups", rolled(60_000)],
      ["rollups", rolled(120_000)],
    ] as const) {
      for (const scope of [{ service: "api" }, { attrs: [["k", "v"]] as [string, string][] }]) {
        const [group] = reader.metricBuckets(query({ metric, agg: "increase", ...over, ...scope }));
        expect(
          group!.exemplars.map((exemplar) => exemplar.traceId),
          `${name} ${JSON.stringify(scope)}`,
        ).to.deep.equal([mine]);
      }
    }
  });

  it("answers histogram quantiles the same from the rollups as from the points across new bounds and bucket drops", () => {
    const id = insertMetric(store.db, { name: "waits", kind: "histogram", temporality: 2, unit: "ms" });
    const series = insertSeries(store.db, id, "api", {}, at(0), at(80));
    const h = (seconds: number, counts: number[], bounds: number[]) => ({
      timeNs: at(seconds),
      startNs: at(-1),
      count: counts.reduce((a, b) => a + b, 0),
      sum: 1,
      detail: { bounds, counts },
    });
    // New bounds within the first minute (a reset); in the second a bucket falls while the count grows.
    const points = [
      h(0, [1, 2, 0], [1, 5]),
      h(10, [2, 5, 1], [1, 5]),
      h(20, [1, 1, 0], [10, 20]),
      h(70, [4, 1, 0], [10, 20]),
      h(80, [3, 1, 3], [10, 20]),
    ];
    insertPoints(store.db, series, points);
    const kind = { kind: "histogram", temporality: 2, monotonic: false, firstWhole: true } as const;
    const input = points.map((p) => ({ ...p, value: null, min: null, max: null, traceIds: [], flags: 0 }));
    insertRollups(
      store.db,
      id,
      series,
      rollupPoints(kind, null, input, [60]).map((row) => ({ ...row, buckets: row.buckets ?? undefined })),
    );
    const metric = reader.metricIdentities("waits")[0]!;
    const ask = (agg: MetricBucketQuery["agg"], stepMs: number, rollups: boolean) =>
      reader.metricBuckets(
        query({ metric, agg, stepMs, toNs: at(119), ...(rollups ? { source: { kind: "rollups", widthS: 60 } } : {}) }),
      )[0]!.values;
    expect(ask("count", 60_000, true)).to.deep.equal([10, 5]);
    for (const agg of ["count", "p50", "p90"] as const) {
      for (const stepMs of [60_000, 120_000]) {
        expect(ask(agg, stepMs, true), `${agg} ${stepMs}`).to.deep.equal(ask(agg, stepMs, false));
      }
    }
    // The second minute's buckets: [3, 0, 0] then [0, 0, 3] (the first bucket's drop counts as
    // none, not -1): rank 3 of 6 is the top of (0, 10].
    expect(ask("p50", 60_000, true)[1]).to.be.closeTo(10, 1e-9);
  });
});

/**
 * The window ends now: a point stamped ahead of it (a sender whose clock runs ahead) is outside
 * it at every step, not only at those read from the points.
 */
describe("SQLite metrics reader: points stamped ahead of the window's end", () => {
  it("counts none of them, at a 15-minute step as at a minute's and from the points", () => {
    const store = testStore(0, at(-3600));
    try {
      // A delta counter: 1 two seconds before now, 100 eight minutes ahead, in the same 15-minute slot.
      const delta = (seconds: number, value: number) =>
        metricPoint({ name: "jobs", temporality: 1, timeNs: at(seconds), startNs: at(seconds - 10), value });
      store.writer.transaction(() =>
        store.writer.writeMetrics(metricBatch("api", [delta(118, 1), delta(600, 100)]), at(120)),
      );
      store.writer.writeHeld();
      const reader = new SqliteReader(store.db);
      const metric = reader.metricIdentities("jobs")[0]!;
      const total = (stepMs: number, source: MetricBucketQuery["source"]) =>
        reader
          .metricBuckets({
            metric,
            agg: "increase",
            fromNs: at(0),
            toNs: at(120),
            attrs: [],
            stepMs,
            source,
            groupBy: [],
          })[0]
          ?.values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
      expect(total(30_000, { kind: "points" })).to.equal(1);
      expect(total(60_000, { kind: "rollups", widthS: 60 })).to.equal(1);
      expect(total(900_000, { kind: "rollups", widthS: 900 })).to.equal(1);
    } finally {
      store.close();
    }
  });
});
