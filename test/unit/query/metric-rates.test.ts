import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { latestOf } from "../../../daemon/query/metric-answers.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so buckets of every step below start at BASE plus a multiple of it. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
const COLLECTOR_START = -3600;
/** Now: 115 s into a 15-minute bucket, 55 s into a minute. */
const NOW = 115;
/** A process started long before the collector: its first point is a baseline. */
const LONG_AGO = -7200;

interface Spec {
  t: number;
  start: number;
  value: number;
}

/** A cumulative counter's points every `everyS` seconds from `fromS` to `toS`, growing `perS` a second. */
function counter(perS: number, everyS: number, fromS: number, toS: number, start = LONG_AGO): Spec[] {
  const points: Spec[] = [];
  for (let t = fromS; t <= toS; t += everyS) points.push({ t, start, value: 1000 + perS * (t - fromS) });
  return points;
}

/** Each point's increase by the counter rules, stated here on their own (docs/api.md). */
function increases(points: Spec[]): { t: number; increase: number }[] {
  return points.map((p, i) => {
    const prev = points[i - 1];
    if (!prev) return { t: p.t, increase: p.start >= COLLECTOR_START ? p.value : 0 };
    const reset = p.start !== prev.start || p.value < prev.value;
    return { t: p.t, increase: reset ? p.value : p.value - prev.value };
  });
}

const SERIES: Record<string, Spec[]> = {
  // 4 a second, exported every 10 s.
  "/steady": counter(4, 10, -600, 110),
  // 2 a second, exported every minute (an SDK's default interval).
  "/minutely": counter(2, 60, -600, 60),
  // 4 a second, first seen 85 s ago: its first point is the baseline.
  "/fresh": counter(4, 10, 30, 110),
  // 4 a second until 200 s ago: it counts its increases in the window, fading as they leave it.
  "/stopped": counter(4, 10, -600, -200),
  // Stopped before the window: 0 now.
  "/gone": counter(4, 10, -600, -400),
  // Restarted at 95 s (a new start time): its new count.
  "/restarted": [...counter(4, 10, -600, -300), { t: 100, start: 95, value: 20 }, { t: 110, start: 95, value: 60 }],
  // Started after the collector, 50 s before its only point: all 30 counted.
  "/whole": [{ t: 100, start: 50, value: 30 }],
};

/** Six pods of one job, 1 a second each, exporting every minute, 10 s apart. */
const PODS = Array.from({ length: 6 }, (_, pod) => counter(1, 60, -600 + 10 * pod, NOW));

/** An agent's sessions one after another, 1 a second each: the first ran from -200 s to -40 s, the next since -35 s. */
const SESSIONS = [
  counter(1, 10, -190, -40, -200).map((p) => ({ ...p, value: p.value - 1000 + 10 })),
  counter(1, 10, -25, 105, -35).map((p) => ({ ...p, value: p.value - 1000 + 10 })),
];

/** A CLI run a minute, each a new series (its own process) that counted 60 in its 30 s and exported once. */
const RUNS = Array.from({ length: 11 }, (_, run) => [{ t: -545 + 60 * run, start: -575 + 60 * run, value: 60 }]);

const record = (name: string, labels: Record<string, string>) => (p: Spec) =>
  metricPoint({ name, timeNs: at(p.t), startNs: at(p.start), value: p.value, attributes: JSON.stringify(labels) });

/**
 * The newest bucket's rate, as the window of minutes from 240 s before now (the five whole
 * minutes before the current one) to now, 355 s, reads it, stated here on its own
 * (docs/api.md): per series, the increases made there over the time they span, from the
 * series' last point in the five minutes before the window to its newest; to now once the
 * newest is more than an interval and a tenth old (it stopped); over the window's length
 * without a point before it. The group's rate is its series' rates added up.
 */
const WINDOW_FROM = -240;
function seriesWindowRate(points: Spec[]): number {
  const inside = increases(points).filter((p) => p.t >= WINDOW_FROM);
  if (inside.length === 0) return 0;
  const total = inside.reduce((sum, p) => sum + p.increase, 0);
  const before = points.filter((p) => p.t < WINDOW_FROM && p.t >= WINDOW_FROM - 300).map((p) => p.t);
  if (before.length === 0) return total / (NOW - WINDOW_FROM);
  const base = Math.max(...before);
  const end = Math.max(...inside.map((p) => p.t));
  const exporting = NOW - end <= (1.1 * (end - base)) / inside.length;
  return total / (exporting ? end - base : NOW - base);
}
function windowRate(series: Spec[][]): number {
  return series.reduce((sum, points) => sum + seriesWindowRate(points), 0);
}

const STEPS: [string, number, MetricSource][] = [
  ["15 minutes from the rollups", 900, { kind: "rollups", widthS: 900 }],
  ["a minute from the rollups", 60, { kind: "rollups", widthS: 60 }],
  ["30 s from the points", 30, { kind: "points" }],
  ["10 s from the points", 10, { kind: "points" }],
];

/**
 * The window ends now, so its newest bucket is still open: it holds the increases made so
 * far. Divided by the whole step, a 15-minute bucket one minute old read a fifteenth of the
 * rate; so the newest bucket reads a trailing window's increase over its length.
 */
describe("the newest bucket's rate, over a trailing window", () => {
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;
  let reader: SqliteReader;

  beforeEach(() => {
    store = testStore(0, at(COLLECTOR_START));
    const points: MetricPointRecord[] = [
      ...Object.entries(SERIES).flatMap(([route, specs]) => specs.map(record("requests", { route }))),
      ...PODS.flatMap((specs, pod) => specs.map(record("jobs", { pod: String(pod) }))),
      ...RUNS.flatMap((specs, run) => specs.map(record("runs", { run: String(run) }))),
      ...SESSIONS.flatMap((specs, session) => specs.map(record("sessions", { session: String(session) }))),
    ];
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(111)));
    // What obsd's query caller has the writer do before a metric read.
    store.writer.writeHeld();
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  afterEach(() => {
    readDb?.close();
    store.close();
  });

  const rates = (name: string, stepS: number, source: MetricSource, groupBy: MetricBucketQuery["groupBy"]) => {
    const metric = reader.metricIdentities(name)[0]!;
    const groups = reader.metricBuckets({
      metric,
      agg: "rate",
      fromNs: at(NOW - 900),
      toNs: at(NOW),
      attrs: [],
      stepMs: stepS * 1000,
      source,
      groupBy,
    });
    return Object.fromEntries(groups.map((g) => [g.key.join("|"), g.values]));
  };
  const newest = (values: (number | null)[] | undefined) => values?.[values.length - 1];

  for (const [what, stepS, source] of STEPS) {
    it(`reads each series' increases in the window per second of it, at a step of ${what}`, () => {
      const answer = rates("requests", stepS, source, [{ attr: "route" }]);
      for (const [route, specs] of Object.entries(SERIES)) {
        expect(newest(answer[route]), route).to.be.closeTo(windowRate([specs]), 1e-12);
      }
      // A series that stopped before the window reads 0 now, not an older bucket's rate.
      expect(newest(answer["/gone"])).to.equal(0);
      expect(latestOf(answer["/gone"]!)).to.equal(0);
      // Series that keep exporting read their rate, whatever the phase of now.
      expect(newest(answer["/steady"])).to.be.closeTo(4, 1e-9);
      expect(newest(answer["/minutely"])).to.be.closeTo(2, 1e-9);
      // One that stopped fades: less than its rate while it was exporting.
      expect(newest(answer["/stopped"]))
        .to.be.above(0)
        .and.below(4 * (50 / 355));
    });

    it(`reads series that follow one another over the window, not twice their rate, at a step of ${what}`, () => {
      // Each divided by its own span, the running session read 1 and the one that ended added
      // its increases again as it faded (metrics-store.md, "The newest bucket's rate").
      const [sessions] = Object.values(rates("sessions", stepS, source, []));
      expect(newest(sessions)).to.be.closeTo(windowRate(SESSIONS), 1e-12);
      expect(newest(sessions)).to.be.closeTo(300 / 355, 1e-9);
    });

    it(`adds up series that export at different moments, at a step of ${what}`, () => {
      const [job] = Object.values(rates("jobs", stepS, source, []));
      expect(newest(job)).to.be.closeTo(windowRate(PODS)!, 1e-12);
      expect(newest(job)).to.be.closeTo(6, 1e-9);
    });
  }

  it("keeps a closed bucket's rate as its increase per second of the step", () => {
    const steady = rates("requests", 900, { kind: "rollups", widthS: 900 }, [{ attr: "route" }])["/steady"]!;
    // 4 a second from -600 s, its first point the baseline.
    expect(steady[0]).to.equal((4 * 590) / 900);
    // Every closed 10 s bucket from -600 s holds one pod's point: first the six baselines, then
    // each a minute of one pod's growth, 6 a second.
    const [job] = Object.values(rates("jobs", 10, { kind: "points" }, []));
    const closed = job!.slice(0, -1).filter((v) => v !== null);
    expect(closed).to.have.length(71);
    expect(closed.slice(0, 6)).to.deep.equal([0, 0, 0, 0, 0, 0]);
    expect(closed.slice(6).every((v) => Math.abs(v! - 6) < 1e-9)).to.equal(true);
  });

  it("reads the same five minutes whatever the query's window and step, series that stopped before a short window included", () => {
    const cases: [number, number, MetricSource][] = [
      [60, 1, { kind: "points" }],
      [30, 1, { kind: "points" }],
      [10, 1, { kind: "points" }],
      [86_400, 3600, { kind: "rollups", widthS: 900 }],
      [86_400, 86_400, { kind: "rollups", widthS: 900 }],
    ];
    for (const [lookbackS, stepS, source] of cases) {
      const read = (name: string, groupBy: MetricBucketQuery["groupBy"]) =>
        reader.metricBuckets({
          metric: reader.metricIdentities(name)[0]!,
          agg: "rate",
          fromNs: at(NOW - lookbackS),
          toNs: at(NOW),
          attrs: [],
          stepMs: stepS * 1000,
          source,
          groupBy,
        });
      const what = `${lookbackS} s by ${stepS} s`;
      const routes = Object.fromEntries(read("requests", [{ attr: "route" }]).map((g) => [g.key[0], g.values]));
      for (const route of ["/steady", "/stopped"]) {
        expect(newest(routes[route]), `${route}, ${what}`).to.be.closeTo(windowRate([SERIES[route]!]), 1e-12);
      }
      // One run a minute, each a series of its own that exported once: 1 a second.
      const [runs] = read("runs", []);
      expect(newest(runs?.values), `runs, ${what}`).to.be.closeTo(windowRate(RUNS), 1e-12);
      expect(windowRate(RUNS)).to.be.closeTo(1, 1 / 5);
    }
  });
});

describe("the newest bucket's rate, whatever the phase of now", () => {
  for (const [what, sinceExportS, offsetS] of [
    ["2 s after an export, at second 2 of a minute", 2, 0],
    ["58 s after an export, at second 57 of a minute", 58, 59],
    ["30 s after an export, exports at second 31", 30, 31],
  ] as const) {
    it(`reads a counter exported every minute at its rate ${what}`, () => {
      const lastT = 1800 + offsetS;
      const now = lastT + sinceExportS;
      const store = testStore(0, at(COLLECTOR_START));
      try {
        // 1 a second, a point every minute for half an hour, ending at lastT.
        const points = counter(1, 60, lastT - 1800, lastT).map(record("ticks", {}));
        store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(now)));
        store.writer.writeHeld();
        const db = openReadConnection(store.path);
        try {
          const reader = new SqliteReader(db);
          const [group] = reader.metricBuckets({
            metric: reader.metricIdentities("ticks")[0]!,
            agg: "rate",
            fromNs: at(now - 900),
            toNs: at(now),
            attrs: [],
            stepMs: 60_000,
            source: { kind: "rollups", widthS: 60 },
            groupBy: [],
          });
          expect(group?.values.at(-1)).to.be.closeTo(1, 1e-9);
        } finally {
          db.close();
        }
      } finally {
        store.close();
      }
    });
  }
});
