import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricIdentity, MetricSource } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** A multiple of 900 s, so buckets of every step below start at BASE plus a multiple of it. */
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;

/**
 * A gauge from two pods every 10 s, written by the writer (points and rollups): pod a from
 * 600 s to 700 s, then replaced by pod b from 710 s on. Now is 745 s: a has been silent for 45 s,
 * past twice its interval.
 */
describe("metric last: a replaced pod, at every step and source", () => {
  const store = testStore();
  let reader: SqliteReader;
  let readDb: ReturnType<typeof openReadConnection>;
  let metric: MetricIdentity;
  const NOW = 745;

  before(() => {
    const points = [
      ...Array.from({ length: 11 }, (_, k) => ({ pod: "a", t: 600 + 10 * k })),
      ...Array.from({ length: 4 }, (_, k) => ({ pod: "b", t: 710 + 10 * k })),
    ];
    for (const { pod, t } of points) {
      const point = metricPoint({
        name: "queue.depth",
        kind: "gauge",
        temporality: 0,
        monotonic: false,
        timeNs: at(t),
        value: 10,
        attributes: JSON.stringify({ pod }),
      });
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("worker", [point]), at(t)));
    }
    store.writer.writeHeld();
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
    metric = reader.metricIdentities("queue.depth")[0] as MetricIdentity;
  });
  after(() => {
    readDb.close();
    store.close();
  });

  it("lists no series without a point in a short window nor a value now", () => {
    const groups = reader.metricBuckets({
      metric,
      fromNs: at(NOW - 30),
      toNs: at(NOW),
      attrs: [],
      stepMs: 10_000,
      source: { kind: "points" },
      groupBy: [{ attr: "pod" }],
      agg: "last",
    });
    // a reported last at 700 s, before the window, and is past its reach: not a group.
    expect(groups.map((group) => [group.key, group.series])).to.deep.equal([[["b"], 1]]);
  });

  for (const [stepS, source, lookbackS] of [
    [10, { kind: "points" }, 900],
    [30, { kind: "points" }, 900],
    [60, { kind: "rollups", widthS: 60 }, 3600],
    [300, { kind: "rollups", widthS: 60 }, 3600],
    [900, { kind: "rollups", widthS: 900 }, 3600],
  ] as [number, MetricSource, number][]) {
    it(`reads b alone now, at a step of ${stepS} s from ${source.kind}`, () => {
      const [group] = reader.metricBuckets({
        metric,
        fromNs: at(NOW - lookbackS),
        toNs: at(NOW),
        attrs: [],
        stepMs: stepS * 1000,
        source,
        groupBy: [],
        agg: "last",
      });
      expect(group?.values.at(-1)).to.equal(10);
      expect(group?.series).to.equal(2);
    });
  }
});
