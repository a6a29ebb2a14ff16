import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so buckets of every step below start at BASE plus a multiple of it. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
const COLLECTOR_START = at(-3600);
/** Now: 115 s into a 15-minute bucket, 55 s into a minute. */
const NOW = at(115);
/** A process started long before the collector: its first point is a baseline. */
const LONG_AGO = at(-7200);

/** A cumulative counter's points every `everyS` seconds from `fromS` to `toS`, growing `perS` a second. */
function counter(labels: Record<string, string>, perS: number, everyS: number, fromS: number, toS: number) {
  const points = [];
  for (let t = fromS; t <= toS; t += everyS) {
    const value = 1000 + perS * (t - fromS);
    points.push(metricPoint({ timeNs: at(t), startNs: LONG_AGO, value, attributes: JSON.stringify(labels) }));
  }
  return points;
}

/** Steps, read from the rollups and from the points. */
const STEPS: [string, number, MetricSource][] = [
  ["15 minutes from the rollups", 900, { kind: "rollups", widthS: 900 }],
  ["a minute from the rollups", 60, { kind: "rollups", widthS: 60 }],
  ["30 s from the points", 30, { kind: "points" }],
  ["10 s from the points", 10, { kind: "points" }],
];

/**
 * The newest bucket is still open when the window ends now: it holds the increases made so
 * far, by the series that exported so far. Divided by the whole step, a 15-minute bucket one
 * minute old reads a fifteenth of the rate; so its rate is each series' over the time its
 * increases span in a trailing window, summed.
 */
describe("the newest bucket's rate, as the counters run now", () => {
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;
  let reader: SqliteReader;

  beforeEach(() => {
    store = testStore(0, COLLECTOR_START);
    const points = [
      // 4 a second, exported every 10 s.
      ...counter({ route: "/steady" }, 4, 10, -600, 110),
      // 2 a second, exported every minute (an SDK's default interval).
      ...counter({ route: "/minutely" }, 2, 60, -600, 60),
      // 4 a second, first seen 30 s into the bucket: its first point is the baseline.
      ...counter({ route: "/fresh" }, 4, 10, 30, 110),
      // 4 a second until -300 s; its process restarted at 95 s (a new start time), 4 a second
      // again: counted from its new start, not through its downtime.
      ...counter({ route: "/restarted" }, 4, 10, -600, -300),
      ...[100, 110].map((t) =>
        metricPoint({ timeNs: at(t), startNs: at(95), value: 4 * (t - 95), attributes: '{"route":"/restarted"}' }),
      ),
      // 1 a second until -400 s, 5 a second since: the trailing window holds five minutes at most.
      ...Array.from({ length: 72 }, (_, k) => -600 + 10 * k).map((t) =>
        metricPoint({
          timeNs: at(t),
          startNs: LONG_AGO,
          value: t <= -400 ? t + 600 : 200 + 5 * (t + 400),
          attributes: '{"route":"/faster"}',
        }),
      ),
      // Started after the collector, 50 s before its only point: all 30 counted since then.
      metricPoint({ timeNs: at(100), startNs: at(50), value: 30, attributes: '{"route":"/whole"}' }),
    ];
    // Six pods of one job, 1 a second each, exporting every minute, 10 s apart.
    for (let pod = 0; pod < 6; pod++) {
      const own = counter({ pod: String(pod) }, 1, 60, -600 + 10 * pod, 115);
      points.push(...own.map((p) => ({ ...p, name: "jobs" })));
    }
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(111)));
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
      fromNs: NOW - 900n * S,
      toNs: NOW,
      attrs: [],
      stepMs: stepS * 1000,
      source,
      groupBy,
    });
    return Object.fromEntries(groups.map((g) => [g.key.join("|"), g.values]));
  };
  const newest = (values: Record<string, (number | null)[]>) =>
    Object.fromEntries(Object.entries(values).map(([key, v]) => [key, v[v.length - 1]]));

  for (const [what, stepS, source] of STEPS) {
    it(`reads each series' rate, at a step of ${what}`, () => {
      const answer = newest(rates("requests", stepS, source, [{ attr: "route" }]));
      expect(answer).to.deep.equal({
        "/steady": 4,
        "/minutely": 2,
        "/fresh": 4,
        "/restarted": 4,
        "/faster": 5,
        "/whole": 0.6,
      });
    });

    it(`adds up series that export at different moments, at a step of ${what}`, () => {
      const [job] = Object.values(rates("jobs", stepS, source, []));
      expect(job![job!.length - 1]).to.be.closeTo(6, 1e-9);
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
});
