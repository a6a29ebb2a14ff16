import { expect } from "chai";
import { exemplarEntry, exemplarsJson } from "../../../daemon/otlp/metric-points.js";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore, onlyGroup } from "../../helpers/metric-reader.js";
import { insertMetric, insertRollups, insertSeries } from "../../helpers/metric-rows.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so every bucket below starts at BASE plus a multiple of its step. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
/** OTLP's DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK. */
const NO_RECORDED_VALUE = 1;
const trace = (n: number) => n.toString(16).padStart(32, "0");

/** Exemplars of traces `n` at their second, in the order given. */
const exemplars = (...sent: [trace: number, second: number][]) =>
  exemplarsJson(sent.map(([n, second]) => exemplarEntry(at(second), 1, trace(n), "00000000000000a1", {})));

const deltaCounter = (name: string, t: number, value: number, sent: string | null): MetricPointRecord =>
  metricPoint({ name, temporality: 1, timeNs: at(t), startNs: at(t - 10), value, exemplars: sent });
const gauge = (t: number, value: number, sent: string | null, flags = 0): MetricPointRecord =>
  metricPoint({
    name: "temperature",
    kind: "gauge",
    temporality: 0,
    monotonic: false,
    timeNs: at(t),
    value,
    exemplars: sent,
    flags,
  });

/** Each way a query reads a minute: the rollups, and the points a minute or half a minute a bucket. */
const SOURCES: [string, number, MetricSource][] = [
  ["the minute rollups", 60, { kind: "rollups", widthS: 60 }],
  ["the points, a minute a bucket", 60, { kind: "points" }],
  ["the points, half a minute a bucket", 30, { kind: "points" }],
];

/**
 * A group's exemplar traces are its newest exemplars (docs/api.md), by the exemplar's own time
 * within a point: the same whichever source and step answers, whatever order they were sent in,
 * and none from a point without a recorded value, which no aggregation reads.
 */
describe("metric queries' exemplar traces", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const points = [
      // Sent out of time order: traces 3 (7 s), 1 (1 s), 4 (9 s) and 2 (4 s).
      deltaCounter("jobs", 10, 4, exemplars([3, 7], [1, 1], [4, 9], [2, 4])),
      // Two series reporting at the same time: the one created first comes first, each's newest first.
      deltaCounter("pairs", 10, 2, exemplars([21, 3], [22, 4])),
      {
        ...deltaCounter("pairs", 10, 2, exemplars([23, 9], [24, 8])),
        attributes: '{"pod":"b"}',
        indexed: ["pod", "b"],
      },
      // Sent at one time: the one sent later first.
      deltaCounter("ties", 10, 3, exemplars([31, 5], [32, 5], [33, 5], [34, 5])),
      gauge(10, 1, exemplars([11, 9])),
      gauge(20, Number.NaN, exemplars([12, 19])),
      gauge(30, 3, exemplars([13, 29]), NO_RECORDED_VALUE),
    ];
    fixture = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(180))),
    );
  });
  afterEach(() => fixture.close());

  const traces = (name: string, agg: MetricBucketQuery["agg"], stepS: number, source: MetricSource) =>
    onlyGroup(fixture.reader, name, { agg, fromNs: at(0), toNs: at(179), stepMs: stepS * 1000, source })?.exemplars.map(
      (exemplar) => exemplar.traceId,
    );

  for (const [label, stepS, source] of SOURCES) {
    it(`keeps a point's three newest exemplars, newest first, from ${label}`, () => {
      expect(traces("jobs", "increase", stepS, source)).to.deep.equal([trace(4), trace(3), trace(2)]);
    });

    it(`orders series reporting at one time as they were created, and exemplars of one time as sent, from ${label}`, () => {
      expect(traces("pairs", "increase", stepS, source)).to.deep.equal([trace(22), trace(21), trace(23)]);
      expect(traces("ties", "increase", stepS, source)).to.deep.equal([trace(34), trace(33), trace(32)]);
    });

    it(`leaves out the exemplars of points without a recorded value, from ${label}`, () => {
      expect(traces("temperature", "max", stepS, source)).to.deep.equal([trace(11)]);
    });
  }
});

/**
 * A group's exemplars are its own newest (docs/api.md), however many newer ones the other
 * groups have: `quiet`'s one exemplar, 10 minutes older than each of `busy`'s 1,100 series'
 * one and than the 1,100 of `loud`'s one point, is still `quiet`'s, whichever path answers
 * (the slot aggregates, packed slots, the general rollup scan, the raw points).
 */
describe("metric queries' exemplar traces per group", () => {
  const CROWD = 1100;
  const crowd = (pack: boolean) =>
    metricReadStore(at(-3600), (store) => {
      const busy = Array.from({ length: CROWD }, (_, i) => ({
        ...gauge(600, 2, exemplars([1000 + i, 600])),
        attributes: JSON.stringify({ pod: String(i) }),
        indexed: ["pod", String(i)],
      }));
      const loud = gauge(
        610,
        3,
        exemplars(...Array.from({ length: CROWD }, (_, i): [number, number] => [5000 + i, 605])),
      );
      store.writer.transaction(() => {
        store.writer.writeMetrics(metricBatch("quiet", [gauge(10, 1, exemplars([7, 10]))]), at(610));
        store.writer.writeMetrics(metricBatch("busy", busy), at(610));
        store.writer.writeMetrics(metricBatch("loud", [loud]), at(610));
      });
      // A point past the first 900 s slot's end and its grace, so the writer packs that slot.
      if (pack)
        store.writer.transaction(() =>
          store.writer.writeMetrics(metricBatch("loud", [gauge(1300, 3, null)]), at(1300)),
        );
    });

  const cases: [string, number, MetricSource, MetricBucketQuery["agg"]][] = [
    ["the minute rollups' slot aggregates", 60, { kind: "rollups", widthS: 60 }, "max"],
    ["the minute rollups, two a bucket", 120, { kind: "rollups", widthS: 60 }, "max"],
    ["the 900 s slots' aggregates", 900, { kind: "rollups", widthS: 900 }, "max"],
    ["the 900 s slots' newest values", 900, { kind: "rollups", widthS: 900 }, "last"],
    ["the 900 s slots, two a bucket", 1800, { kind: "rollups", widthS: 900 }, "max"],
    ["the points", 60, { kind: "points" }, "max"],
  ];

  for (const pack of [false, true]) {
    for (const [label, stepS, source, agg] of cases) {
      it(`keeps a group's exemplar beside newer ones of other groups, from ${label}${pack ? ", packed" : ""}`, () => {
        const fixture = crowd(pack);
        try {
          if (pack) {
            const packs = fixture.store.db.prepare("SELECT count(*) FROM metric_slot_packs").pluck().get();
            expect(packs).to.equal(1n);
          }
          const reader = fixture.reader;
          const groups = reader.metricBuckets({
            metric: reader.metricIdentities("temperature")[0]!,
            attrs: [],
            groupBy: ["service"],
            agg,
            fromNs: at(0),
            toNs: at(899),
            stepMs: stepS * 1000,
            source,
          });
          const traces = Object.fromEntries(groups.map((g) => [g.key[0], g.exemplars.map((e) => e.traceId)]));
          expect(traces.quiet).to.deep.equal([trace(7)]);
          expect(traces.busy).to.deep.equal([trace(1000), trace(1001), trace(1002)]);
          expect(traces.loud).to.have.length(3);
        } finally {
          fixture.close();
        }
      });
    }
  }
});

/**
 * A group's exemplars are ordered by the time of the point that carried each (docs/api.md), and
 * a rollup row keeps each exemplar's point time, so a minute or 15-minute step gives what the
 * points give: pod a's points at 0:48 (traces 2 at 0:47 and 4 at 0:48) and 0:58 (trace 5), pod
 * b's at 0:55 (trace 6) are 5, 6, 4 at every step, each at its point's time.
 */
describe("metric queries' exemplar traces across a rollup slot", () => {
  const cases: [string, number, MetricSource, MetricBucketQuery["agg"]][] = [
    ["the points, 10 s a bucket", 10, { kind: "points" }, "increase"],
    ["the points, a minute a bucket", 60, { kind: "points" }, "increase"],
    ["the minute rollups' slot aggregates", 60, { kind: "rollups", widthS: 60 }, "increase"],
    ["the minute rollups, five a bucket", 300, { kind: "rollups", widthS: 60 }, "increase"],
    ["the 900 s slots' aggregates", 900, { kind: "rollups", widthS: 900 }, "increase"],
    ["the 900 s slots, two a bucket", 1800, { kind: "rollups", widthS: 900 }, "increase"],
  ];
  const pod = (name: string, t: number, value: number, sent: string | null): MetricPointRecord => ({
    ...deltaCounter("orders", t, value, sent),
    attributes: JSON.stringify({ pod: name }),
    indexed: ["pod", name],
  });
  const fill = (pack: boolean) => (store: MetricReadStore["store"]) => {
    store.writer.transaction(() => {
      const points = [
        pod("a", 10, 1, null),
        pod("a", 48, 2, exemplars([2, 47], [4, 48])),
        pod("a", 58, 1, exemplars([5, 58])),
      ];
      store.writer.writeMetrics(metricBatch("api", points), at(60));
      store.writer.writeMetrics(
        metricBatch("api", [pod("b", 10, 1, null), pod("b", 55, 1, exemplars([6, 55]))]),
        at(60),
      );
    });
    // A point past the first 900 s slot's end and its grace, so the writer packs that slot.
    if (pack)
      store.writer.transaction(() =>
        store.writer.writeMetrics(metricBatch("api", [pod("a", 1300, 1, null)]), at(1300)),
      );
  };

  for (const pack of [false, true]) {
    for (const [label, stepS, source, agg] of cases) {
      it(`orders them by their points' times, at their points' times, from ${label}${pack ? ", packed" : ""}`, () => {
        const fixture = metricReadStore(at(-3600), fill(pack));
        try {
          const packs = fixture.store.db.prepare("SELECT count(*) FROM metric_slot_packs").pluck().get();
          expect(packs).to.equal(pack ? 1n : 0n);
          const group = onlyGroup(fixture.reader, "orders", {
            agg,
            fromNs: at(0),
            toNs: at(899),
            stepMs: stepS * 1000,
            source,
          });
          expect(group?.exemplars).to.deep.equal([
            { traceId: trace(5), timeNs: at(58) },
            { traceId: trace(6), timeNs: at(55) },
            { traceId: trace(4), timeNs: at(48) },
          ]);
        } finally {
          fixture.close();
        }
      });
    }
  }
});

/**
 * Rollup rows written before exemplar times were kept hold trace ids alone: each is read as at
 * its row's newest point, as it was, beside rows with their exemplars' own times.
 */
describe("metric queries' exemplar traces from rows of older builds", () => {
  it("reads trace ids alone at their row's newest point, ordered with newer rows' exemplars by time", () => {
    const store = testStore();
    try {
      const id = insertMetric(store.db, { name: "stored", kind: "gauge" });
      const row = (lastS: number, exemplars: string[] | { traceId: string; timeNs: bigint }[]) => ({
        widthS: 60,
        slot: Number(at(0) / 60n / S),
        points: 1,
        firstNs: at(lastS),
        lastNs: at(lastS),
        valueSum: 1,
        valueMin: 1,
        valueMax: 1,
        valueLast: 1,
        exemplars,
      });
      const older = insertSeries(store.db, id, "api", { pod: "a" }, at(50), at(50));
      insertRollups(store.db, id, older, [row(50, [trace(1), trace(2)])]);
      const newer = insertSeries(store.db, id, "api", { pod: "b" }, at(55), at(55));
      insertRollups(store.db, id, newer, [row(55, [{ traceId: trace(3), timeNs: at(40) }])]);
      const readDb = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(readDb);
        for (const stepS of [60, 120]) {
          const source = { kind: "rollups", widthS: 60 } as const;
          const group = onlyGroup(reader, "stored", {
            agg: "max",
            fromNs: at(0),
            toNs: at(179),
            stepMs: stepS * 1000,
            source,
          });
          expect(group?.exemplars, `${stepS} s`).to.deep.equal([
            { traceId: trace(1), timeNs: at(50) },
            { traceId: trace(2), timeNs: at(50) },
            { traceId: trace(3), timeNs: at(40) },
          ]);
        }
      } finally {
        readDb.close();
      }
    } finally {
      store.close();
    }
  });
});
