import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricIdentity, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { Retention } from "../../../daemon/store/retention.js";
import type { MetricGroupBy } from "../../../shared/query-types.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
const T0 = 1_700_000_100n * S;
const HOUR_MS = 3_600_000;

type Store = ReturnType<typeof testStore>;

/** Writes the points, then what the writer holds, as obsd's writer does before retention. */
function write(store: Store, service: string, points: MetricPointRecord[]): number {
  const written = store.writer.transaction(() => store.writer.writeMetrics(metricBatch(service, points), 0n));
  store.writer.writeHeld();
  return written;
}

function point(name: string, seconds: number, route = "/a"): MetricPointRecord {
  return metricPoint({ name, timeNs: T0 + BigInt(seconds) * S, value: seconds, attributes: JSON.stringify({ route }) });
}

function count(store: Store, table: string): bigint {
  return store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as bigint;
}

/** The last value of metric `name` per minute from a minute before T0 to `toNs`, from its 60 s rollups. */
function lastValues(store: Store, name: string, toNs: bigint, groupBy: MetricGroupBy[]) {
  const reader = new SqliteReader(store.db);
  const metric = reader.metricIdentities(name)[0] as MetricIdentity;
  return reader.metricBuckets({
    metric,
    fromNs: T0 - 60n * S,
    toNs,
    attrs: [],
    stepMs: 60_000,
    source: { kind: "rollups", widthS: 60 },
    groupBy,
    agg: "last",
  });
}

describe("metric retention", () => {
  let store: Store;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("deletes old points, their rollup slots and packs, emptied series and metrics, keeping the counters true", () => {
    // "old" stops an hour in; "live" goes on for two hours.
    write(store, "api", [point("old", 0), point("old", 1800), point("live", 0, "/x")]);
    write(store, "api", [point("live", 1800, "/x"), point("live", 4000, "/x"), point("live", 7200, "/x")]);
    write(store, "api", [point("live", 7210, "/y")]);
    // Packed: "old" slot 0, "live" slots 0, 2 and 4 (metric-slot-packer.ts).
    expect(count(store, "metric_slot_packs")).to.equal(4n);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 });
    // Now is T0 + 2h 1m: the cutoff is T0 + 1h 1m.
    const trimmed = retention.trimByAge(T0 + 7260n * S);
    expect(trimmed).to.include({ points: 4 });
    expect(store.db.prepare("SELECT name FROM metrics").pluck().all()).to.deep.equal(["live"]);
    expect(store.db.prepare("SELECT attributes, first_ns FROM metric_series ORDER BY id").all()).to.deep.equal([
      { attributes: '{"route":"/x"}', first_ns: T0 + 4000n * S },
      { attributes: '{"route":"/y"}', first_ns: T0 + 7210n * S },
    ]);
    expect(count(store, "metric_points")).to.equal(3n);
    expect(count(store, "metric_series_attributes")).to.equal(2n);
    // Each series kept keeps its newest time; the deleted series' go with them.
    expect(
      store.db
        .prepare(
          "SELECT count(*) FROM metric_series s LEFT JOIN metric_series_last l ON l.series_id = s.id WHERE l.series_id IS NULL",
        )
        .pluck()
        .get(),
    ).to.equal(0n);
    expect(
      store.db
        .prepare(
          "SELECT s.attributes, l.last_ns FROM metric_series_last l LEFT JOIN metric_series s ON s.id = l.series_id ORDER BY l.series_id",
        )
        .all(),
    ).to.deep.equal([
      { attributes: '{"route":"/x"}', last_ns: T0 + 7200n * S },
      { attributes: '{"route":"/y"}', last_ns: T0 + 7210n * S },
    ]);
    const cutoff = T0 + 3660n * S;
    const kept = store.db.prepare("SELECT width_s, slot FROM metric_rollups").all() as {
      width_s: bigint;
      slot: bigint;
    }[];
    for (const row of kept) expect((row.slot + 1n) * row.width_s * S > cutoff).to.equal(true);
    // The kept points' 60 s rows, and the 900 s row of the packed slot 4 (the others are open).
    expect(kept).to.have.length(3 + 1);
    // Their packs went with their rows; the pack of slot 4, after the cutoff, stays.
    expect(store.db.prepare("SELECT slot * 900 FROM metric_slot_packs").pluck().all()).to.deep.equal([
      (T0 / S / 900n) * 900n + 3600n,
    ]);
    expect(store.counters()).to.include({ points: 3n, series: 2n });
    expect(store.counters().metrics_trimmed_through_ns).to.equal(T0 + 1800n * S);
    expect(retention.trimByAge(T0 + 7260n * S)).to.include({ points: 0 });
  });

  it("keeps the rollup slots of points a pass stopped short of, dropping them once their points go", () => {
    // One series, a point every 10 minutes for two hours; the cutoff (T0 + 1h 1m) leaves 7 old.
    const points = Array.from({ length: 13 }, (_, i) => point("m", i * 600));
    write(store, "api", points);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 3 });
    const slotsOf = (width: bigint) =>
      store.db
        .prepare("SELECT slot FROM metric_rollups WHERE width_s = ? ORDER BY slot")
        .pluck()
        .all(width) as bigint[];
    /**
     * Every kept point's 60 s slot still has its rollup row; its 900 s slot, where packed (every
     * slot up to the newest pack), its row and its pack.
     */
    const rollupsCoverPoints = () => {
      const times = store.db.prepare("SELECT time_ns FROM metric_points").pluck().all() as bigint[];
      const packs = store.db.prepare("SELECT slot FROM metric_slot_packs ORDER BY slot").pluck().all() as bigint[];
      const newestPack = packs.at(-1) ?? -1n;
      expect(packs).to.not.be.empty;
      for (const time of times) {
        expect(slotsOf(60n)).to.include(time / (60n * S));
        const slot = time / (900n * S);
        if (slot > newestPack) continue;
        expect(slotsOf(900n)).to.include(slot);
        expect(packs).to.include(slot);
      }
    };
    expect(retention.trimByAge(T0 + 7260n * S)).to.include({ points: 3 });
    expect(count(store, "metric_points")).to.equal(10n);
    rollupsCoverPoints();
    expect(retention.trimByAge(T0 + 7260n * S)).to.include({ points: 3 });
    rollupsCoverPoints();
    expect(retention.trimByAge(T0 + 7260n * S)).to.include({ points: 1 });
    expect(count(store, "metric_points")).to.equal(6n);
    rollupsCoverPoints();
    const cutoff = T0 + 3660n * S;
    for (const width of [60n, 900n]) {
      for (const slot of slotsOf(width)) expect((slot + 1n) * width * S > cutoff).to.equal(true);
    }
  });

  for (const [what, unrecorded, kept] of [
    ["", [], 1170],
    // Points 123 to 125 (T0 + 1230 s to 1250 s) without a value: the first minute kept has no row.
    [", its first kept minute's points without a value", [123, 124, 125], 1140],
  ] as const) {
    it(`refolds the slots its cutoff falls in: rollups and raw points count the same increases of the points kept${what}`, () => {
      // A counter adding 10 every 10 s for 40 minutes, its 900 s slots 0 and 1 packed.
      const counterPoints = Array.from({ length: 241 }, (_, i) =>
        metricPoint({
          name: "c",
          timeNs: T0 + BigInt(i * 10) * S,
          startNs: 1n,
          value: (unrecorded as readonly number[]).includes(i) ? Number.NaN : 10 * i,
        }),
      );
      write(store, "api", counterPoints);
      expect(Number(count(store, "metric_slot_packs"))).to.be.above(1);
      // The cutoff at T0 + 20m 25s: inside a minute and inside packed 900 s slot 1.
      const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 });
      expect(retention.trimByAge(T0 + (1225n + 3600n) * S)).to.include({ points: 123 });
      const reader = new SqliteReader(store.db);
      const total = (stepMs: number, source: MetricSource) =>
        reader
          .metricBuckets({
            metric: reader.metricIdentities("c")[0] as MetricIdentity,
            fromNs: T0 - 900n * S,
            toNs: T0 + 2700n * S,
            attrs: [],
            stepMs,
            source,
            groupBy: [],
            agg: "increase",
          })
          .flatMap((group) => group.values)
          .reduce<number>((sum, value) => sum + (value ?? 0), 0);
      // The first point kept with a value is a baseline: the increases of 10 after it.
      expect(total(10_000, { kind: "points" })).to.equal(kept);
      expect(total(60_000, { kind: "rollups", widthS: 60 })).to.equal(kept);
      expect(total(900_000, { kind: "rollups", widthS: 900 })).to.equal(kept);
    });
  }

  it("deletes every rollup row and pack of a metric it empties, so a metric made later under its id starts clean", () => {
    // T0 is 40 s into its minute: the points end 10 s before that minute's end.
    write(store, "api", [point("gone", 0), point("gone", 10)]);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 });
    // The cutoff falls after both points, inside their minute: the minute's slot does not end before it.
    retention.trimByAge(T0 + 15n * S + 3_600_000_000_000n);
    expect(store.db.prepare("SELECT name FROM metrics").pluck().all()).to.deep.equal([]);
    expect(count(store, "metric_rollups")).to.equal(0n);
    expect(count(store, "metric_slot_packs")).to.equal(0n);
    // A new metric and series take the freed ids; their answer holds their own point alone.
    write(store, "api", [point("fresh", 130)]);
    const [group] = lastValues(store, "fresh", T0 + 240n * S, []);
    // Its one value, in its minute and the minutes it is carried into (a `last` answer).
    expect([...new Set(group?.values.filter((value) => value !== null))]).to.deep.equal([130]);
  });

  it("deletes the packs of a metric it empties in a pass cut short, which no later pass would visit", () => {
    // "gone" has a packed slot (its points reach 1500 s); "x" keeps points older than the cutoff
    // after a pass of two rows, so that pass drops slots only before its oldest point kept.
    write(store, "api", [point("gone", 0), point("gone", 1500), point("x", 100), point("x", 5000)]);
    expect(count(store, "metric_slot_packs") > 0n).to.equal(true);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 2 });
    retention.trimByAge(T0 + 1600n * S + 3_600_000_000_000n);
    expect(store.db.prepare("SELECT name FROM metrics").pluck().all()).to.deep.equal(["x"]);
    const goneRows = (table: string) =>
      store.db.prepare(`SELECT count(*) FROM ${table} WHERE metric_id NOT IN (SELECT id FROM metrics)`).pluck().get();
    expect(goneRows("metric_slot_packs")).to.equal(0n);
    expect(goneRows("metric_rollups")).to.equal(0n);
  });

  it("never gives a new series the id of one it deleted", () => {
    // "/b", the newest series, stops 10 s into T0's minute; "/a" goes on.
    write(store, "api", [point("m", 0, "/a"), point("m", 10, "/b")]);
    write(store, "api", [point("m", 7200, "/a")]);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 });
    // The cutoff falls inside "/b"'s last minute, after its point: "/b" goes, with its minute's row.
    retention.trimByAge(T0 + 15n * S + 3_600_000_000_000n);
    expect(store.db.prepare("SELECT attributes FROM metric_series").pluck().all()).to.deep.equal(['{"route":"/a"}']);
    write(store, "api", [point("m", 7210, "/c")]);
    const groups = lastValues(store, "m", T0 + 7260n * S, [{ attr: "route" }]);
    const fresh = groups.find((group) => group.key[0] === "/c");
    expect([...new Set(fresh?.values.filter((value) => value !== null))]).to.deep.equal([7210]);
  });

  it("deletes the rollup rows of a series it empties, in slots the cutoff falls inside, so counts read no deleted point", () => {
    // "/b" stops 10 s into T0's minute (and its 900 s slot); "/a" goes on, with a packed slot after.
    write(store, "api", [point("m", 0, "/a"), point("m", 10, "/b")]);
    write(store, "api", [point("m", 3620, "/a"), point("m", 7200, "/a")]);
    const retention = new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 });
    retention.trimByAge(T0 + 15n * S + 3_600_000_000_000n);
    expect(store.db.prepare("SELECT attributes FROM metric_series").pluck().all()).to.deep.equal(['{"route":"/a"}']);
    const orphans = store.db
      .prepare("SELECT count(*) FROM metric_rollups WHERE series_id NOT IN (SELECT id FROM metric_series)")
      .pluck()
      .get();
    expect(orphans).to.equal(0n);
    // Every pack names only series that exist (float64 ids, metric-slot-packs.ts).
    const live = new Set((store.db.prepare("SELECT id FROM metric_series").pluck().all() as bigint[]).map(Number));
    for (const ids of store.db.prepare("SELECT series_ids FROM metric_slot_packs").pluck().all() as Buffer[]) {
      for (let at = 0; at < ids.length; at += 8) expect(live.has(ids.readDoubleLE(at))).to.equal(true);
    }
    // The metrics list counts the two points kept, both windows (60 s rows, and 900 s ones past 6 hours).
    const reader = new SqliteReader(store.db);
    for (const hours of [2n, 12n]) {
      const page = { fromNs: T0 + 7260n * S - hours * 3600n * S, toNs: T0 + 7260n * S, limit: 10 };
      expect(reader.metrics({ page }).items.map((m) => m.pointCount)).to.deep.equal([2]);
    }
  });

  it("lets the writer go on after retention deleted the series it knew", () => {
    write(store, "api", [point("old", 0)]);
    new Retention(store.db, { maxAgeMs: HOUR_MS, maxBytes: 1024 ** 3, batchRows: 1000 }).trimByAge(T0 + 7200n * S);
    expect(count(store, "metric_series")).to.equal(0n);
    expect(write(store, "api", [point("old", 7200)])).to.equal(1);
    expect(
      store.db.prepare("SELECT count(*) FROM metric_series s JOIN metrics m ON m.id = s.metric_id").pluck().get(),
    ).to.equal(1n);
    expect(store.counters()).to.include({ points: 1n, series: 1n });
  });

  it("trims metrics by size with the other signals, oldest first", () => {
    const points: MetricPointRecord[] = [];
    for (let s = 0; s < 3000; s += 10) points.push(point("busy", s, `/r${s % 7}`));
    write(store, "api", points);
    const retention = new Retention(store.db, { maxAgeMs: 1000 * HOUR_MS, maxBytes: 1, batchRows: 50 });
    const trimmed = retention.trimBySize();
    expect(trimmed.points).to.be.within(1, 50);
    expect(store.counters().points).to.equal(BigInt(points.length - trimmed.points));
    expect(count(store, "metric_points")).to.equal(BigInt(points.length - trimmed.points));
    const oldest = store.db.prepare("SELECT min(time_ns) FROM metric_points").pluck().get() as bigint;
    expect(oldest > T0).to.equal(true);
  });
});
