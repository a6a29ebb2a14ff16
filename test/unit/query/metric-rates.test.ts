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

/** A cumulative counter's points every `everyS` seconds from `fromS` to `toS`, growing `perS` a second. */
function counter(route: string, startNs: bigint, perS: number, everyS: number, fromS: number, toS: number) {
  const points = [];
  for (let t = fromS; t <= toS; t += everyS) {
    points.push(
      metricPoint({ timeNs: at(t), startNs, value: 1000 + perS * (t - fromS), attributes: JSON.stringify({ route }) }),
    );
  }
  return points;
}

/**
 * A rate is an increase per second of the time it was made in. A bucket still open at the
 * window's end holds only part of a step's increases, and a bucket narrower than a series'
 * export interval holds a whole interval's increase: either divided by the step reads far from
 * the rate the counters ran at.
 */
describe("metric rates over the time their increases span", () => {
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;
  let reader: SqliteReader;

  beforeEach(() => {
    store = testStore(0, COLLECTOR_START);
    const before = at(-7200);
    const points = [
      // 4 a second, exported every 10 s.
      ...counter("/steady", before, 4, 10, -600, 110),
      // 2 a second, exported every minute (an SDK's default interval).
      ...counter("/minutely", before, 2, 60, -600, 60),
      // 4 a second, first seen 30 s into the bucket: its first point is the baseline.
      ...counter("/fresh", before, 4, 10, 30, 110),
    ];
    // Started after the collector, 50 s before its only point: all 30 counted since then.
    points.push(metricPoint({ timeNs: at(100), startNs: at(50), value: 30, attributes: '{"route":"/whole"}' }));
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(111)));
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  afterEach(() => {
    readDb?.close();
    store.close();
  });

  const rates = (stepS: number, source: MetricSource, groupBy: MetricBucketQuery["groupBy"] = [{ attr: "route" }]) => {
    const metric = reader.metricIdentities("requests")[0]!;
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

  it("reads the open 15-minute bucket's rate as the counters ran, not a fraction of it", () => {
    const answer = rates(900, { kind: "rollups", widthS: 900 });
    expect(newest(answer)).to.deep.equal({ "/steady": 4, "/minutely": 2, "/fresh": 4, "/whole": 0.6 });
    // A closed bucket keeps the increase per second of the step: 4 a second from -600 s.
    expect(answer["/steady"]![0]).to.equal((4 * 590) / 900);
  });

  it("adds up the series' rates when ungrouped", () => {
    const [all] = Object.values(rates(900, { kind: "rollups", widthS: 900 }, []));
    expect(all![all!.length - 1]).to.be.closeTo(4 + 2 + 4 + 0.6, 1e-9);
  });

  it("reads the open minute from the 60 s rollups the same way", () => {
    expect(newest(rates(60, { kind: "rollups", widthS: 60 }))).to.deep.equal({
      "/steady": 4,
      "/minutely": 2,
      "/fresh": 4,
      "/whole": 0.6,
    });
  });

  it("reads every bucket of the raw points over its increases' time, also when the step is shorter than the export interval", () => {
    const answer = rates(30, { kind: "points" });
    // Buckets from 90 s before the window (-810 s) to the one holding 115 s.
    expect(newest(answer)).to.deep.equal({ "/steady": 4, "/minutely": null, "/fresh": 4, "/whole": 0.6 });
    // Each point of the minutely counter holds a minute of growth, in a 30 s bucket; its first
    // (at -600 s) is the baseline, 0.
    const minutely = answer["/minutely"]!;
    expect(minutely.filter((v) => v !== null)).to.deep.equal([0, ...Array(11).fill(2)]);
    expect(answer["/steady"]!.filter((v) => v !== null && v !== 4)).to.deep.equal([]);
  });
});
