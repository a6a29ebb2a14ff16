import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricGroupValues } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import type { MetricAgg, MetricGroupBy } from "../../../shared/query-types.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

/**
 * A day view's default step reads closed slots from their packs (store/metric-slot-packs.ts)
 * and the rest from the 60 s rows the packs are merged from: its answers are the 60 s rows'
 * answers, whatever the agg, kind, grouping and filter, exemplars and resets included.
 */
const S = 1_000_000_000n;
/** On a 900 s boundary. */
const T0 = 1_700_000_100n * S;
const MINUTES = 70;

const exemplar = (traceId: string) => JSON.stringify([{ timeUnixNano: "1", value: 1, traceId, spanId: null }]);

/** A minute of every kind: counters in two services (one resets at minute 33), a gauge, a histogram. */
function minute(m: number): { service: string; points: MetricPointRecord[] }[] {
  const timeNs = T0 + BigInt(m * 60) * S;
  const startNs = T0 - 3600n * S;
  const counter = (route: string, value: number, traced: boolean) =>
    metricPoint({
      timeNs,
      startNs,
      value,
      attributes: JSON.stringify({ route }),
      exemplars: traced ? exemplar(`${m.toString(16).padStart(2, "0")}${"a".repeat(30)}`) : null,
    });
  const reset = m >= 33 ? m - 33 : m * 4;
  return [
    {
      service: "api",
      points: [
        // Exemplars only in closed slots, so the answer's come from packs.
        counter("/a", m * 3, m < 45 && m % 7 === 0),
        counter("/b", reset, false),
        metricPoint({
          timeNs,
          name: "queue",
          kind: "gauge",
          temporality: 0,
          monotonic: false,
          // SQLite keeps an infinite value; the answers must too, packed or not.
          value: m === 3 ? Number.POSITIVE_INFINITY : (m * 37) % 11,
        }),
        metricPoint({
          timeNs,
          startNs,
          name: "latency",
          kind: "histogram",
          count: m * 4,
          // No sum through slot 1: its sum and avg are null, not 0; from 30:00 on a sum again,
          // whose first increase is unknown (averages count totals over totals at every width).
          sum: m >= 15 && m < 30 ? null : m * 10.5,
          min: 0.5,
          max: 9 + (m % 5),
          bounds: [1, 5, 10],
          bucketCounts: [m, m, m, m],
        }),
      ],
    },
    {
      service: "worker",
      points: [
        counter("/a", m * 5, m < 45 && m % 11 === 0),
        // With its sum throughout: slot 1's pack has sums for some series and not others.
        metricPoint({
          timeNs,
          startNs,
          name: "latency",
          kind: "histogram",
          count: m * 2,
          sum: m * 3.5,
          bounds: [1, 5, 10],
          bucketCounts: [m, m, 0, 0],
        }),
      ],
    },
  ];
}

describe("SQLite metrics reader: packed slots", () => {
  let store: ReturnType<typeof testStore>;
  let readDb: ReturnType<typeof openReadConnection>;
  let reader: SqliteReader;

  before(() => {
    store = testStore();
    for (let m = 0; m < MINUTES; m++) {
      store.writer.transaction(() => {
        for (const { service, points } of minute(m)) store.writer.writeMetrics(metricBatch(service, points), 0n);
      });
    }
    store.writer.writeHeld();
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  after(() => {
    readDb.close();
    store.close();
  });

  const cases: [string, MetricAgg[]][] = [
    ["requests", ["rate", "increase", "sum"]],
    ["queue", ["last", "avg", "min", "max", "sum"]],
    ["latency", ["count", "sum", "avg", "min", "max", "rate"]],
  ];
  const groupings: MetricGroupBy[][] = [[], ["service"], [{ attr: "route" }]];
  const filters: Pick<MetricBucketQuery, "service" | "attrs">[] = [
    { attrs: [] },
    { service: "api", attrs: [] },
    { attrs: [["route", "/a"]] },
  ];

  const END = T0 + BigInt(MINUTES * 60) * S;
  /** The whole history; two packed slots alone (no rows after them); from the second pack on. */
  const windows: [bigint, bigint][] = [
    [T0 - 900n * S, END],
    [T0, T0 + 1799n * S],
    [T0 + 900n * S, END],
  ];

  function answers(): Record<string, MetricGroupValues[]> {
    const out: Record<string, MetricGroupValues[]> = {};
    for (const [name, aggs] of cases) {
      for (const metric of reader.metricIdentities(name)) {
        for (const agg of aggs) {
          for (const groupBy of groupings) {
            for (const filter of filters) {
              for (const [fromNs, toNs] of windows) {
                const query: MetricBucketQuery = {
                  metric,
                  fromNs,
                  toNs,
                  stepMs: 900_000,
                  source: { kind: "rollups", widthS: 900 },
                  groupBy,
                  agg,
                  ...filter,
                };
                const groups = reader.metricBuckets(query);
                groups.sort((a, b) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)));
                const window =
                  fromNs === T0 - 900n * S && toNs === END ? "" : ` ${(fromNs - T0) / S}..${(toNs - T0) / S}`;
                out[`${name} ${agg} ${JSON.stringify(groupBy)} ${JSON.stringify(filter)}${window}`] = groups;
              }
            }
          }
        }
      }
    }
    return out;
  }

  it("answers from the packs as from the rows, for every agg, grouping and filter", () => {
    const packed = store.db.prepare("SELECT count(*) FROM metric_slot_packs").pluck().get() as bigint;
    // 70 minutes: slots 0 to 3 closed 5 minutes before the newest point, 4 open, per metric.
    expect(packed).to.equal(3n * 4n);
    const fromPacks = answers();
    const requests = fromPacks[`requests rate [] {"attrs":[]}`]?.[0];
    expect(requests?.resets).to.equal(1);
    expect(requests?.exemplars.length).to.be.greaterThan(0);
    const sums = fromPacks[`latency sum ["service"] {"attrs":[]}`];
    expect(sums?.map((group) => [group.key, group.values[2] === null])).to.deep.equal([
      [["api"], true],
      [["worker"], false],
    ]);
    expect(requests?.values.filter((v) => v !== null)).to.have.length(5);
    expect(fromPacks[`queue max [] {"attrs":[]}`]?.[0]?.values[1]).to.equal(Number.POSITIVE_INFINITY);
    // The closed slots are read from the packs: rows changed under them change nothing...
    const shift = (by: number) =>
      store.db
        .prepare("UPDATE metric_rollups SET increase = increase + ? WHERE width_s = 900 AND slot <= ?")
        .run(by, T0 / S / 900n + 2n);
    shift(1000);
    expect(answers()).to.deep.equal(fromPacks);
    shift(-1000);
    // ...and without them the 60 s rows the packs were merged from give the same answers,
    // exemplars included, in the same order at the same times (each at its point's).
    store.db.exec("DELETE FROM metric_slot_packs");
    expect(answers()).to.deep.equal(fromPacks);
  });

  it("averages a histogram as its totals, from raw points as from rollups, where a sum goes missing", () => {
    const [metric] = reader.metricIdentities("latency");
    if (metric === undefined) throw new Error("no latency metric");
    // 30:00 to 44:59: the api's sums come back at 30:00 (that minute's sum increase unknown, its
    // count's 4), 10.5 a minute after; the worker's 3.5 and 2 a minute throughout.
    const at = (source: MetricBucketQuery["source"]) =>
      reader.metricBuckets({
        metric,
        fromNs: T0 + 1800n * S,
        toNs: T0 + 2699n * S,
        stepMs: 900_000,
        source,
        groupBy: [],
        agg: "avg",
        attrs: [],
      })[0]?.values;
    const fromRollups = at({ kind: "rollups", widthS: 900 });
    expect(fromRollups?.[0]).to.be.closeTo((14 * 10.5 + 15 * 3.5) / (15 * 4 + 15 * 2), 1e-12);
    expect(at({ kind: "points" })).to.deep.equal(fromRollups);
  });
});
