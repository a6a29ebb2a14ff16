import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { recorded } from "../../../daemon/store/metric-rollup.js";
import { MAX_HELD_POINTS, POINT_HOLD_MINUTES } from "../../../daemon/store/metric-writer.js";
import { Retention } from "../../../daemon/store/retention.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { everyKindRequest } from "../../helpers/metric-requests.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
const T0 = 1_700_000_100n * S;
const START = T0 - 3600n * S;

type Store = ReturnType<typeof testStore>;

/** Writes the points, then what the writer holds, as obsd's writer does before a reader reads. */
function write(store: Store, points: MetricPointRecord[], service = "api", writer = store.writer): number {
  const written = writer.transaction(() => writer.writeMetrics(metricBatch(service, points), 0n));
  writer.writeHeld();
  return written;
}

/** Writes the points in a transaction and nothing more: what the writer holds stays held. */
function writeOnly(store: Store, points: MetricPointRecord[], writer = store.writer, receivedNs = 0n): number {
  return writer.transaction(() => writer.writeMetrics(metricBatch("api", points), receivedNs));
}

/** The points, rows and newest times of the store, to compare with another written otherwise. */
function stored(store: Store): { points: unknown[]; rollups: unknown[]; lasts: unknown[] } {
  return {
    points: store.db.prepare("SELECT * FROM metric_points ORDER BY series_id, time_ns").raw().all(),
    rollups: rollups(store),
    lasts: store.db.prepare("SELECT series_id, last_ns FROM metric_series_last ORDER BY series_id").raw().all(),
  };
}

function counter(seconds: number, value: number, attributes = '{"route":"/a"}'): MetricPointRecord {
  return metricPoint({ timeNs: T0 + BigInt(seconds) * S, startNs: START, value, attributes });
}

function rollups(store: Store): unknown[] {
  return store.db
    .prepare("SELECT * FROM metric_rollups ORDER BY metric_id, width_s, slot, series_id")
    .all()
    .map((row) => ({ ...(row as object) }));
}

describe("metric writer", () => {
  let store: Store;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("uses up no id when a writer starts over on series and metrics it does not remember", () => {
    write(store, [counter(0, 1, '{"route":"/a"}'), counter(0, 1, '{"route":"/b"}')]);
    for (let restart = 1; restart <= 3; restart++) {
      const writer = new TelemetryWriter(store.db, 0n);
      write(
        store,
        [counter(restart * 10, 2, '{"route":"/a"}'), counter(restart * 10, 2, '{"route":"/b"}')],
        "api",
        writer,
      );
    }
    write(store, [counter(100, 1, '{"route":"/c"}'), { ...counter(100, 1), name: "other" }]);
    expect(store.db.prepare("SELECT id, attributes FROM metric_series ORDER BY id").raw().all()).to.deep.equal([
      [1n, '{"route":"/a"}'],
      [2n, '{"route":"/b"}'],
      [3n, '{"route":"/c"}'],
      [4n, '{"route":"/a"}'],
    ]);
    expect(store.db.prepare("SELECT id, name FROM metrics ORDER BY id").raw().all()).to.deep.equal([
      [1n, "requests"],
      [2n, "other"],
    ]);
  });

  it("stores a point once however often it is sent, and counts it once", () => {
    const points = [counter(0, 1), counter(10, 3), counter(20, 4)];
    expect(write(store, points)).to.equal(3);
    expect(write(store, points)).to.equal(0);
    expect(write(store, [counter(10, 3)])).to.equal(0);
    expect(store.db.prepare("SELECT count(*) FROM metric_points").pluck().get()).to.equal(3n);
    expect(store.counters()).to.include({ points: 3n, series: 1n, services: 1n });
    const row = store.db.prepare("SELECT increase, points FROM metric_rollups WHERE width_s = 60").get();
    expect(row).to.deep.equal({ increase: 4, points: 3n });
  });

  it("keeps one series per resource, scope, metric and point attributes, with its attribute rows", () => {
    write(store, [counter(0, 1), counter(0, 2, '{"route":"/b"}'), counter(10, 3)]);
    write(store, [counter(20, 1)], "worker");
    write(store, [metricPoint({ timeNs: T0, value: 5, kind: "gauge", temporality: 0, monotonic: false })]);
    const series = store.db
      .prepare(
        `SELECT m.name, m.kind, s.attributes, s.first_ns, l.last_ns, length(s.attr_hash) AS hash FROM metric_series s
          JOIN metrics m ON m.id = s.metric_id JOIN metric_series_last l ON l.series_id = s.id ORDER BY s.id`,
      )
      .all();
    expect(series).to.deep.equal([
      { name: "requests", kind: "sum", attributes: '{"route":"/a"}', first_ns: T0, last_ns: T0 + 10n * S, hash: 20n },
      { name: "requests", kind: "sum", attributes: '{"route":"/b"}', first_ns: T0, last_ns: T0, hash: 20n },
      {
        name: "requests",
        kind: "sum",
        attributes: '{"route":"/a"}',
        first_ns: T0 + 20n * S,
        last_ns: T0 + 20n * S,
        hash: 20n,
      },
      { name: "requests", kind: "gauge", attributes: "{}", first_ns: T0, last_ns: T0, hash: 20n },
    ]);
    const attributeRows = store.db
      .prepare(
        "SELECT k.key, a.value, a.series_id FROM metric_series_attributes a JOIN attr_keys k ON k.id = a.key_id ORDER BY a.series_id",
      )
      .all();
    expect(attributeRows).to.deep.equal([
      { key: "route", value: "/a", series_id: 1n },
      { key: "route", value: "/b", series_id: 2n },
      { key: "route", value: "/a", series_id: 3n },
    ]);
    expect(store.counters()).to.include({ series: 4n, points: 5n, services: 2n });
    const seen = store.db.prepare("SELECT name, last_seen_ns FROM services ORDER BY name").all();
    expect(seen).to.deep.equal([
      { name: "api", last_seen_ns: T0 + 10n * S },
      { name: "worker", last_seen_ns: T0 + 20n * S },
    ]);
  });

  it("keeps each series' first and last point times through late points, a restart and a resend", () => {
    const extent = () =>
      store.db
        .prepare("SELECT s.first_ns, l.last_ns FROM metric_series s JOIN metric_series_last l ON l.series_id = s.id")
        .raw()
        .get();
    const at = (seconds: number) => T0 + BigInt(seconds) * S;
    write(store, [counter(100, 1), counter(200, 2)]);
    expect(extent()).to.deep.equal([at(100), at(200)]);
    // Late points: one before the first moves it, one inside changes nothing.
    write(store, [counter(150, 1), counter(50, 0)]);
    expect(extent()).to.deep.equal([at(50), at(200)]);
    write(store, [counter(300, 3), counter(250, 2)]);
    expect(extent()).to.deep.equal([at(50), at(300)]);
    const restarted = new TelemetryWriter(store.db, 0n);
    write(store, [counter(20, 0)], "api", restarted);
    write(store, [counter(20, 0), counter(400, 4)], "api", restarted);
    expect(extent()).to.deep.equal([at(20), at(400)]);
  });

  it("keeps a metric's latest description and metadata", () => {
    write(store, [metricPoint({ timeNs: T0, value: 1, description: "old" })]);
    write(store, [metricPoint({ timeNs: T0 + S, value: 2, description: "new", metadata: '{"a":"b"}' })]);
    const metrics = store.db.prepare("SELECT name, description, metadata FROM metrics").all();
    expect(metrics).to.deep.equal([{ name: "requests", description: "new", metadata: '{"a":"b"}' }]);
  });

  it("stores the stored encodings of every point kind", () => {
    const exemplars = JSON.stringify([{ traceId: "ab".repeat(16), spanId: "cd".repeat(8), value: 1 }]);
    write(store, [
      metricPoint({
        timeNs: T0,
        kind: "histogram",
        count: 3,
        sum: 6,
        min: 1,
        max: 3,
        bounds: [2],
        bucketCounts: [1, 2],
        exemplars,
      }),
    ]);
    const point = store.db.prepare("SELECT count, sum, min, max, detail, exemplars FROM metric_points").get();
    expect(point).to.deep.equal({
      count: 3n,
      sum: 6,
      min: 1,
      max: 3,
      detail: '{"bounds":[2],"counts":[1,2]}',
      exemplars,
    });
    const row = store.db.prepare("SELECT buckets, exemplars FROM metric_rollups WHERE width_s = 60").get();
    // Each exemplar's trace id with its point's time (rollup-exemplars.ts).
    expect(row).to.deep.equal({
      buckets: '{"bounds":[2],"counts":[0,0]}',
      exemplars: `[["${"ab".repeat(16)}","${T0}"]]`,
    });
  });

  it("keeps one series and one point for a point sent with its attributes in another order", () => {
    const gauge = (attributes: unknown[]) => ({
      resourceMetrics: [
        {
          resource: {},
          scopeMetrics: [
            {
              scope: {},
              metrics: [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: `${T0}`, asDouble: 5, attributes }] } }],
            },
          ],
        },
      ],
    });
    const a = { key: "a", value: { intValue: 1 } };
    const b = { key: "b", value: { intValue: 2 } };
    const decode = (attributes: unknown[]) =>
      decodeMetricRequest(Buffer.from(JSON.stringify(gauge(attributes))), "json");
    expect(store.writer.transaction(() => store.writer.writeMetrics(decode([a, b]), 0n))).to.equal(1);
    expect(store.writer.transaction(() => store.writer.writeMetrics(decode([b, a]), 0n))).to.equal(0);
    // both orders in one request: the request's own repeat filter keeps one
    const both = decodeMetricRequest(
      Buffer.from(
        JSON.stringify({ resourceMetrics: [...gauge([b, a]).resourceMetrics, ...gauge([a, b]).resourceMetrics] }),
      ),
      "json",
    );
    expect(store.writer.transaction(() => store.writer.writeMetrics(both, 0n))).to.equal(0);
    expect(store.db.prepare("SELECT attributes FROM metric_series").pluck().all()).to.deep.equal(['{"a":1,"b":2}']);
    store.writer.writeHeld();
    expect(store.db.prepare("SELECT count(*) FROM metric_points").pluck().get()).to.equal(1n);
  });

  it("keeps one series and one point for a point resent with its resource's or scope's attributes in another order", () => {
    const attrs = (keys: string[]) => keys.map((key) => ({ key, value: { stringValue: `${key}-value` } }));
    const request = (resource: string[], scope: string[]) =>
      decodeMetricRequest(
        Buffer.from(
          JSON.stringify({
            resourceMetrics: [
              {
                resource: { attributes: attrs(resource) },
                scopeMetrics: [
                  {
                    scope: { name: "lib", attributes: attrs(scope) },
                    metrics: [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: `${T0}`, asDouble: 5 }] } }],
                  },
                ],
              },
            ],
          }),
        ),
        "json",
      );
    const write = (resource: string[], scope: string[]) =>
      store.writer.transaction(() => store.writer.writeMetrics(request(resource, scope), 0n));
    expect(write(["service.name", "host.name"], ["a", "b"])).to.equal(1);
    expect(write(["host.name", "service.name"], ["a", "b"])).to.equal(0);
    expect(write(["service.name", "host.name"], ["b", "a"])).to.equal(0);
    store.writer.writeHeld();
    expect(store.db.prepare("SELECT count(*) FROM metric_series").pluck().get()).to.equal(1n);
    expect(store.db.prepare("SELECT count(*) FROM metric_points").pluck().get()).to.equal(1n);
    // The resource keeps the attributes as first sent.
    expect(store.db.prepare("SELECT attributes FROM resources").pluck().all()).to.deep.equal([
      '{"service.name":"service.name-value","host.name":"host.name-value"}',
    ]);
  });

  it("keeps metrics and scopes apart whose names and units differ only in where a NUL falls", () => {
    const request = (metrics: unknown[], scope: Record<string, unknown> = {}) =>
      decodeMetricRequest(
        Buffer.from(JSON.stringify({ resourceMetrics: [{ resource: {}, scopeMetrics: [{ scope, metrics }] }] })),
        "json",
      );
    const gauge = (name: string, unit: string, seconds: number, value: number) => ({
      name,
      unit,
      gauge: { dataPoints: [{ timeUnixNano: `${T0 + BigInt(seconds) * S}`, asDouble: value }] },
    });
    // Joined with NUL, "m" + "u\0gauge\0" and "m\0gauge\0u" + "" were one identity.
    const both = request([gauge("m", "u\u0000gauge\u0000", 0, 1), gauge("m\u0000gauge\u0000u", "", 0, 2)]);
    expect(store.writer.transaction(() => store.writer.writeMetrics(both, 0n))).to.equal(2);
    const later = request([gauge("m\u0000gauge\u0000u", "", 10, 42)]);
    expect(store.writer.transaction(() => store.writer.writeMetrics(later, 0n))).to.equal(1);
    // Scopes "lib\0v2" and "lib" at version "v2\0".
    const scoped = (scope: Record<string, unknown>, value: number) => request([gauge("s", "", 0, value)], scope);
    expect(store.writer.transaction(() => store.writer.writeMetrics(scoped({ name: "lib\u0000v2" }, 1), 0n))).to.equal(
      1,
    );
    expect(
      store.writer.transaction(() => store.writer.writeMetrics(scoped({ name: "lib", version: "v2\u0000" }, 2), 0n)),
    ).to.equal(1);
    store.writer.writeHeld();
    const rows = store.db
      .prepare(
        "SELECT m.name, m.unit, count(*) AS points FROM metric_points p JOIN metric_series s ON s.id = p.series_id JOIN metrics m ON m.id = s.metric_id GROUP BY m.id ORDER BY m.id",
      )
      .raw()
      .all();
    expect(rows).to.deep.equal([
      ["m", "u\u0000gauge\u0000", 1n],
      ["m\u0000gauge\u0000u", "", 2n],
      ["s", "", 2n],
    ]);
  });

  it("stores every point kind the decoder gives, edge values and all", () => {
    const batch = decodeMetricRequest(Buffer.from(JSON.stringify(everyKindRequest())), "json");
    const inserted = store.writer.transaction(() => store.writer.writeMetrics(batch, 0n));
    store.writer.writeHeld();
    expect(inserted).to.equal(batch.points.length);
    const kinds = store.db.prepare("SELECT DISTINCT kind FROM metrics ORDER BY kind").pluck().all();
    expect(kinds).to.deep.equal(["exponential_histogram", "gauge", "histogram", "sum", "summary"]);
    expect(store.counters().points).to.equal(BigInt(batch.points.length));
    // Every point with a value is in the rollups; the request's NaN values are stored and not rolled up.
    const valued = batch.points.filter((p) =>
      recorded({ flags: p.flags, value: p.value === null || Number.isNaN(p.value) ? null : p.value, count: p.count }),
    );
    expect(valued.length).to.be.below(batch.points.length);
    const rolled = store.db.prepare("SELECT sum(points) FROM metric_rollups WHERE width_s = 60").pluck().get();
    expect(rolled).to.equal(BigInt(valued.length));
  });

  it("gives the same rollups whatever order the points arrive in", () => {
    const points = [0, 10, 30, 50, 70, 90].map((s, i) => counter(s, [5, 8, 2, 6, 9, 12][i] as number));
    write(store, points);
    const inOrder = rollups(store);
    const other = testStore();
    try {
      write(other, [points[0]!, points[2]!, points[5]!]);
      write(other, [points[4]!, points[1]!]);
      write(other, [points[3]!]);
      expect(rollups(other)).to.deep.equal(inOrder);
      expect(other.counters()).to.include({ points: 6n, series: 1n });
    } finally {
      other.close();
    }
  });

  it("decides whether a series' first point counts whole by its oldest point, whichever arrives first", () => {
    // A process started before the collector (T0) sends 1,000,000 then 1,000,010: its first
    // point is the baseline. The process after it, started after the collector, sends 4.
    const a1 = metricPoint({ timeNs: T0 + 10n * S, startNs: START, value: 1_000_000 });
    const a2 = metricPoint({ timeNs: T0 + 20n * S, startNs: START, value: 1_000_010 });
    const b1 = metricPoint({ timeNs: T0 + 30n * S, startNs: T0 + 25n * S, value: 4 });
    const stores = [testStore(0, T0), testStore(0, T0), testStore(0, T0)];
    try {
      const [inOrder, late, oneRequest] = stores as [Store, Store, Store];
      write(inOrder, [a1, a2, b1]);
      write(late, [b1]);
      write(late, [a1, a2]);
      write(oneRequest, [b1, a1, a2]);
      const increase = (target: Store) =>
        Number(target.db.prepare("SELECT sum(increase) FROM metric_rollups WHERE width_s = 60").pluck().get());
      // 10 of growth, then the new process's 4 (a reset); not the first process's lifetime.
      expect(increase(inOrder)).to.equal(14);
      expect(rollups(late)).to.deep.equal(rollups(inOrder));
      expect(rollups(oneRequest)).to.deep.equal(rollups(inOrder));
      const firstWhole = (target: Store) => target.db.prepare("SELECT first_whole FROM metric_series").pluck().all();
      expect([firstWhole(late), firstWhole(oneRequest)]).to.deep.equal([[0n], [0n]]);
    } finally {
      for (const each of stores) each.close();
    }
  });

  it("keeps a series' first-point decision for a late point of the same process: after a restart, or retention", () => {
    const increase = (target: Store) =>
      Number(target.db.prepare("SELECT sum(increase) FROM metric_rollups WHERE width_s = 60").pluck().get());
    // A process started after the collector (T0); the collector restarts before b0 arrives,
    // and a process started before a restart did not start before the collector that saw it.
    const start = T0 + 25n * S;
    const b0 = metricPoint({ timeNs: T0 + 27n * S, startNs: start, value: 2 });
    const b1 = metricPoint({ timeNs: T0 + 30n * S, startNs: start, value: 4 });
    const b2 = metricPoint({ timeNs: T0 + 90n * S, startNs: start, value: 9 });
    const stores = [testStore(0, T0), testStore(0, T0), testStore(0, T0)];
    try {
      const [inOrder, late, trimmed] = stores as [Store, Store, Store];
      write(inOrder, [b0, b1, b2]);
      write(late, [b1, b2]);
      write(late, [b0], "api", new TelemetryWriter(late.db, T0 + 100n * S));
      expect(increase(late)).to.equal(increase(inOrder));
      // Retention deleted the first point: the first kept is a baseline (3 -> 5 -> 9, 6), and
      // stays one when a point between the cutoff and it arrives.
      const p = (seconds: bigint, value: number) => metricPoint({ timeNs: T0 + seconds * S, startNs: start, value });
      write(trimmed, [p(30n, 1), p(100n, 5), p(200n, 9)]);
      new Retention(trimmed.db, { maxAgeMs: 0, maxBytes: 1024 ** 3, batchRows: 100_000 }).trimByAge(T0 + 50n * S);
      write(trimmed, [p(60n, 3)]);
      expect(increase(trimmed)).to.equal(6);
    } finally {
      for (const each of stores) each.close();
    }
  });

  it("does not count whole a late first point whose start is after its own time, as it would not in order", () => {
    // OTLP wants start <= time; a point that breaks it is a baseline, not growth since its start.
    const start = T0 + 40n * S;
    const a = metricPoint({ timeNs: T0 + 30n * S, startNs: start, value: 10 });
    const b = metricPoint({ timeNs: T0 + 50n * S, startNs: start, value: 15 });
    const stores = [testStore(0, T0), testStore(0, T0), testStore(0, T0)];
    try {
      const [inOrder, late, oneRequest] = stores as [Store, Store, Store];
      write(inOrder, [a, b]);
      write(late, [b]);
      write(late, [a]);
      write(oneRequest, [b, a]);
      const increase = (target: Store) =>
        Number(target.db.prepare("SELECT sum(increase) FROM metric_rollups WHERE width_s = 60").pluck().get());
      expect(increase(inOrder)).to.equal(5);
      expect(rollups(late)).to.deep.equal(rollups(inOrder));
      expect(rollups(oneRequest)).to.deep.equal(rollups(inOrder));
    } finally {
      for (const each of stores) each.close();
    }
  });

  it("refolds the slot of the point after a late one, however far it lies", () => {
    const points = [counter(0, 5), counter(10, 9), counter(200, 30)];
    write(store, points);
    const inOrder = rollups(store);
    const other = testStore();
    try {
      write(other, [points[0]!, points[2]!]);
      write(other, [points[1]!]);
      expect(rollups(other)).to.deep.equal(inOrder);
    } finally {
      other.close();
    }
  });

  it("continues a series' rollups after a restart from what it stored", () => {
    const points = [0, 10, 20, 70, 80].map((s, i) => counter(s, [5, 8, 2, 6, 9][i] as number));
    write(store, points);
    const expected = rollups(store);
    const other = testStore();
    try {
      write(other, points.slice(0, 3));
      const restarted = new TelemetryWriter(other.db, 0n);
      write(other, points.slice(3), "api", restarted);
      expect(rollups(other)).to.deep.equal(expected);
    } finally {
      other.close();
    }
  });

  it("forgets what a rolled-back transaction created", () => {
    expect(() =>
      store.writer.transaction(() => {
        store.writer.writeMetrics(metricBatch("api", [counter(0, 1)]), 0n);
        throw new Error("disk full");
      }),
    ).to.throw("disk full");
    expect(write(store, [counter(0, 1), counter(10, 2)])).to.equal(2);
    expect(store.counters()).to.include({ points: 2n, series: 1n });
    expect(store.db.prepare("SELECT count(*) FROM metric_series").pluck().get()).to.equal(1n);
  });

  describe("the open minute, held unwritten", () => {
    // Every 10 s for four minutes: /a throughout, /b for its first minute only.
    const points = (from: number, to: number) =>
      Array.from({ length: 24 }, (_, i) => i * 10)
        .filter((s) => s >= from && s < to)
        .flatMap((s) => [counter(s, s * 2), ...(s < 60 ? [counter(s, s, '{"route":"/b"}')] : [])]);
    const clock = (seconds: number) => T0 + BigInt(seconds) * S;
    let reference: Store;
    before(() => {
      reference = testStore();
      for (let s = 0; s < 240; s += 10) write(reference, points(s, s + 10));
    });
    after(() => reference.close());

    const minuteRows = (target: Store, seconds: number) =>
      Number(
        target.db
          .prepare("SELECT count(*) FROM metric_rollups WHERE width_s = 60 AND slot = ?")
          .pluck()
          .get(Number((T0 + BigInt(seconds) * S) / (60n * S))),
      );

    /** Expects the store to hold what a store written in order up to `seconds` holds, nothing held. */
    const expectWrittenInOrder = (seconds: number) => {
      const partial = testStore();
      try {
        write(partial, points(0, seconds));
        expect(stored(store)).to.deep.equal(stored(partial));
      } finally {
        partial.close();
      }
    };

    it("writes a series' minute when the series moves on, or once the minute is over, and all of it on request", () => {
      const minuteOf = (seconds: number) => (T0 + BigInt(seconds) * S) / (60n * S);
      for (let s = 0; s < 240; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // The last minute is open: /a's row of it is held, as is its newest time.
      expect(minuteRows(store, 230)).to.equal(0);
      expect(minuteRows(store, 0)).to.equal(2);
      const last = store.db.prepare("SELECT last_ns FROM metric_series_last WHERE series_id = 1").pluck();
      expect((last.get() as bigint) < T0 + 230n * S).to.equal(true);
      // /b stopped in the first minute: written once the clock passed the minute after it.
      expect(store.db.prepare("SELECT slot FROM metric_rollups WHERE series_id = 2").pluck().all()).to.deep.equal([
        minuteOf(0),
      ]);
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("holds a series' points, journaled until they are written, and the journal trimmed after", () => {
      const count = (table: string) => Number(store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
      writeOnly(store, points(0, 30), store.writer, clock(30));
      // Acknowledged: in the journal, one row a request, not yet among the points.
      expect(count("metric_points")).to.equal(0);
      expect(count("metric_point_journal")).to.equal(1);
      for (let s = 30; s < 240; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // /b stopped after its first minute: its points went with its row. /a (series 1) writes
      // its points when it moves on to a minute that is its turn, every POINT_HOLD_MINUTES
      // (the next test), which T0 puts after these four minutes.
      const minute0 = Number(T0 / (60n * S));
      expect([1, 2, 3].filter((m) => (minute0 + m + 1) % POINT_HOLD_MINUTES === 0)).to.deep.equal([]);
      expect(count("metric_points")).to.equal(6);
      // The journal keeps every row /a holds a point in: one request for the first 30 s, then
      // one every 10 s.
      expect(count("metric_point_journal")).to.equal(22);
      store.writer.writeHeld();
      expect(count("metric_point_journal")).to.equal(0);
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("holds nothing in the store's sight when nothing is held, and a clean stop leaves nothing to rebuild", () => {
      const marked = () => store.db.prepare("SELECT count(*) FROM meta WHERE key = 'metric_rows_held'").pluck().get();
      writeOnly(store, points(0, 30));
      expect(marked()).to.equal(1n);
      store.writer.writeHeld();
      expect(marked()).to.equal(0n);
      const restarted = new TelemetryWriter(store.db, 0n);
      expect(restarted.holdsMetrics()).to.equal(false);
    });

    it("gives the same rows whatever order the points arrive in, a late point meeting a held minute", () => {
      const all = points(0, 240);
      writeOnly(
        store,
        all.filter((_, i) => i % 3 !== 1),
      );
      writeOnly(store, all.filter((_, i) => i % 3 === 1).reverse());
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("rebuilds from the points what an obsd that stopped without writing it held", () => {
      for (let s = 0; s < 150; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // Stopped here (killed): a new writer on the same file, as after a restart.
      const restarted = new TelemetryWriter(store.db, 0n);
      expect(restarted.holdsMetrics()).to.equal(true);
      restarted.writeHeld();
      expectWrittenInOrder(150);
      // And goes on from there as if it had never stopped.
      for (let s = 150; s < 240; s += 10) writeOnly(store, points(s, s + 10), restarted, clock(s));
      restarted.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("rebuilds from the points a minute it held when a later transaction rolled back", () => {
      writeOnly(store, points(0, 40));
      expect(() =>
        store.writer.transaction(() => {
          store.writer.writeMetrics(metricBatch("api", points(40, 50)), 0n);
          throw new Error("disk full");
        }),
      ).to.throw("disk full");
      writeOnly(store, points(40, 240));
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    /** Makes every write of a rollup row fail, as a full disk would, until called with false. */
    const failRowWrites = (on: boolean) =>
      store.db.exec(
        on
          ? "CREATE TEMP TRIGGER full BEFORE INSERT ON metric_rollups BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
          : "DROP TRIGGER full",
      );
    const failing = (target: TelemetryWriter, batch: MetricPointRecord[]) =>
      expect(() =>
        target.transaction(() => {
          target.writeMetrics(metricBatch("api", batch), 0n);
          throw new Error("disk full");
        }),
      ).to.throw("disk full");

    it("rebuilds what a failed write of the held minutes had released", () => {
      writeOnly(store, points(0, 40));
      failRowWrites(true);
      expect(() => store.writer.writeHeld()).to.throw("full");
      failRowWrites(false);
      writeOnly(store, points(40, 240));
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("rebuilds the rows an ingest transaction released when it fails at its end", () => {
      for (let s = 0; s < 60; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      failRowWrites(true);
      // /a moves on and /b's minute is over: both released, then their rows cannot be written.
      expect(() => writeOnly(store, points(60, 130), store.writer, clock(130))).to.throw("full");
      failRowWrites(false);
      writeOnly(store, points(60, 240), store.writer, clock(240));
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("keeps what is to be rebuilt through two rollbacks in a row, and after a restart", () => {
      writeOnly(store, points(0, 40));
      failing(store.writer, points(40, 50));
      failing(store.writer, [counter(45, 1, '{"route":"/c"}')]);
      writeOnly(store, points(40, 150));
      const restarted = new TelemetryWriter(store.db, 0n);
      failing(restarted, [counter(155, 1, '{"route":"/c"}')]);
      writeOnly(store, points(150, 240), restarted);
      restarted.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("rebuilds what a transaction released when it fails after the metric rows, or at COMMIT", () => {
      for (let s = 0; s < 60; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // The counters are written after the metric writer's flush.
      store.db.exec(
        "CREATE TEMP TRIGGER full BEFORE UPDATE ON counters BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
      );
      expect(() => writeOnly(store, points(60, 130), store.writer, clock(130))).to.throw("full");
      store.db.exec("DROP TRIGGER full");
      // A deferred constraint fails the COMMIT of a write of the held rows.
      store.db.pragma("foreign_keys = ON");
      store.db.exec(`CREATE TEMP TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TEMP TABLE child (id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TEMP TRIGGER orphan AFTER INSERT ON metric_rollups BEGIN INSERT INTO child VALUES (1); END;`);
      expect(() => store.writer.writeHeld()).to.throw(/FOREIGN KEY/);
      store.db.exec("DROP TRIGGER orphan");
      writeOnly(store, points(60, 240), store.writer, clock(240));
      store.writer.writeHeld();
      expect(stored(store)).to.deep.equal(stored(reference));
    });

    it("keeps its mark while refolds are still to do, through transactions without metrics", () => {
      for (let s = 0; s < 150; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // Killed; the next writer's first transaction holds spans only, then it is killed too.
      new TelemetryWriter(store.db, 0n).transaction(() => {});
      const third = new TelemetryWriter(store.db, 0n);
      expect(third.holdsMetrics()).to.equal(true);
      // A rollback leaves refolds to do as well.
      failing(third, points(150, 160));
      third.transaction(() => {});
      expect(new TelemetryWriter(store.db, 0n).holdsMetrics()).to.equal(true);
      third.writeHeld();
      expectWrittenInOrder(150);
    });

    it("leaves to retention's next pass the points it holds, and loses none of them", () => {
      const policy = { maxAgeMs: 0, maxBytes: 1024 ** 3, batchRows: 100_000 };
      // /a holds 60 to 110 s, /b 60 to 90 s: retention at 95 s finds none of them stored; a pass
      // later, at 100 s, it finds all of them.
      for (const s of [60, 70, 80, 90, 100, 110]) {
        writeOnly(
          store,
          [counter(s, s), ...(s < 100 ? [counter(s, s, '{"route":"/b"}')] : [])],
          store.writer,
          clock(s),
        );
      }
      const retention = new Retention(store.db, policy);
      retention.trimByAge(T0 + 95n * S);
      expect(store.db.prepare("SELECT count(*) FROM metric_series").pluck().get()).to.equal(2n);
      writeOnly(store, [counter(130, 130)], store.writer, clock(130));
      store.writer.writeHeld();
      const times = () =>
        store.db
          .prepare("SELECT series_id, (time_ns - ?) / ? FROM metric_points ORDER BY series_id, time_ns")
          .raw()
          .all(T0, S);
      expect(times()).to.have.length(11);
      retention.trimByAge(T0 + 100n * S);
      expect(times()).to.deep.equal([
        [1n, 100n],
        [1n, 110n],
        [1n, 130n],
      ]);
      expect(store.db.prepare("SELECT id FROM metric_series").pluck().all()).to.deep.equal([1n]);
    });

    it("clears its mark in the store after a rollback once nothing is held", () => {
      writeOnly(store, points(0, 10));
      failing(store.writer, points(10, 20));
      store.writer.writeHeld();
      expect(store.db.prepare("SELECT count(*) FROM meta WHERE key = 'metric_rows_held'").pluck().get()).to.equal(0n);
      expect(new TelemetryWriter(store.db, 0n).holdsMetrics()).to.equal(false);
    });

    it("moves a series' newest time in the store as it moves on to each minute, with no reader asking", () => {
      for (let s = 0; s < 240; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      const last = store.db.prepare("SELECT last_ns FROM metric_series_last WHERE series_id = 1").pluck().get();
      // Its newest point is at 230 s; the store has the newest of the minute before.
      expect(last).to.equal(T0 + 170n * S);
    });

    it("keeps holding through retention of older points, as if what it held had been written first, once the next pass has run", () => {
      // Everything before 100 s goes: /b is deleted, /a keeps its points from 100 s.
      const policy = { maxAgeMs: 0, maxBytes: 1024 ** 3, batchRows: 100_000 };
      const trimmed = (target: Store, first: () => void) => {
        for (let s = 0; s < 240; s += 10) writeOnly(target, points(s, s + 10), target.writer, clock(s));
        first();
        new Retention(target.db, policy).trimByAge(T0 + 100n * S);
        for (let s = 240; s < 300; s += 10) writeOnly(target, [counter(s, s * 2)], target.writer, clock(s));
        target.writer.writeHeld();
        // Points held through the pass, older than its cutoff, are written for the next one.
        new Retention(target.db, policy).trimByAge(T0 + 100n * S);
        return stored(target);
      };
      const written = testStore();
      try {
        expect(trimmed(store, () => {})).to.deep.equal(trimmed(written, () => written.writer.writeHeld()));
        expect(store.db.prepare("SELECT id FROM metric_series").pluck().all()).to.deep.equal([1n]);
      } finally {
        written.close();
      }
    });

    it("writes a stopped series' minute before the slot that holds it is packed", () => {
      for (let s = 0; s < 240; s += 10) writeOnly(store, points(s, s + 10), store.writer, clock(s));
      // /a goes on alone for 20 minutes: the first 900 s slot closes and is packed.
      for (let s = 240; s < 1500; s += 10) writeOnly(store, [counter(s, s * 2)], store.writer, clock(s));
      const packed = store.db
        .prepare("SELECT series_id, points FROM metric_rollups WHERE width_s = 900 ORDER BY slot, series_id")
        .raw()
        .all();
      expect(packed.length).to.be.greaterThan(0);
      expect(packed).to.deep.include([2n, 6n]);
    });
  });

  describe("the points held, journaled", () => {
    const clock = (seconds: number) => T0 + BigInt(seconds) * S;
    const count = (sql: string) => Number(store.db.prepare(sql).pluck().get());
    const policy = { maxAgeMs: 0, maxBytes: 1024 ** 3, batchRows: 100_000 };
    const timesOf = (route: string) =>
      store.db
        .prepare(
          "SELECT (p.time_ns - ?) / ? FROM metric_points p JOIN metric_series s ON s.id = p.series_id WHERE s.attributes = ?",
        )
        .pluck()
        .all(T0, S, JSON.stringify({ route }));

    it("counts once, and keeps the first of, a point resent after its minute was left, in one transaction or one request", () => {
      const w = store.writer;
      const answers = w.transaction(() => [
        w.writeMetrics(metricBatch("api", [counter(0, 1)]), clock(0)),
        w.writeMetrics(metricBatch("api", [counter(60, 5)]), clock(60)),
        w.writeMetrics(metricBatch("api", [counter(0, 999)]), clock(60)),
      ]);
      expect(answers).to.deep.equal([1, 1, 0]);
      expect(writeOnly(store, [counter(60, 5), counter(120, 9)], w, clock(120))).to.equal(1);
      w.writeHeld();
      expect(store.counters().points).to.equal(3n);
      expect(store.db.prepare("SELECT value FROM metric_points WHERE time_ns = ?").pluck().get(T0)).to.equal(1);
    });

    for (const [what, valueAt] of [
      ["", (s: number) => s],
      [" (series whose every point is without a value)", () => Number.NaN],
    ] as [string, (s: number) => number][]) {
      it(`writes a series' points on its turn, every POINT_HOLD_MINUTES minutes, a share of the series each minute${what}`, () => {
        const series = 20;
        const minutes = 3 * POINT_HOLD_MINUTES;
        const route = (i: number) => `{"route":"/${i}"}`;
        const writtenBy = store.db.prepare("SELECT series_id, count(*) FROM metric_points GROUP BY series_id").raw();
        const newestTimes = store.db.prepare("SELECT min(last_ns) FROM metric_series_last").pluck();
        let before = new Map<bigint, bigint>();
        const turns = new Map<bigint, number[]>();
        for (let s = 0; s < minutes * 60; s += 10) {
          writeOnly(
            store,
            Array.from({ length: series }, (_, i) => counter(s, valueAt(s), route(i))),
            store.writer,
            clock(s),
          );
          const now = new Map(writtenBy.all() as [bigint, bigint][]);
          for (const [id, n] of now) if (n !== before.get(id)) turns.set(id, [...(turns.get(id) ?? []), s / 60]);
          before = now;
          // Every series' newest time in the store stays within about a minute of its newest point.
          const newest = newestTimes.get() as bigint;
          if (s >= 120) expect(newest >= clock(s - 120), `at ${s} s: ${(newest - T0) / S} s`).to.equal(true);
        }
        expect(turns.size).to.equal(series);
        const perMinute = new Map<number, number>();
        for (const [, at] of turns) {
          // Every POINT_HOLD_MINUTES, each time with the points of the minutes since the last.
          for (let i = 1; i < at.length; i++)
            expect((at[i] as number) - (at[i - 1] as number)).to.equal(POINT_HOLD_MINUTES);
          for (const m of at) perMinute.set(m, (perMinute.get(m) ?? 0) + 1);
        }
        expect(Math.max(...perMinute.values())).to.equal(series / POINT_HOLD_MINUTES);
        store.writer.writeHeld();
        expect(count("SELECT count(*) FROM metric_points")).to.equal(series * minutes * 6);
      });
    }

    it("goes on holding a series' points after a reader had everything written", () => {
      const series = 20;
      const route = (i: number) => `{"route":"/${i}"}`;
      const written = store.db
        .prepare("SELECT count(DISTINCT series_id) FROM metric_points WHERE time_ns >= ?")
        .pluck();
      const minute = (m: number) => {
        for (let s = m * 60; s < (m + 1) * 60; s += 10) {
          writeOnly(
            store,
            Array.from({ length: series }, (_, i) => counter(s, s, route(i))),
            store.writer,
            clock(s),
          );
        }
      };
      // Long enough for the journal to have been trimmed more often than a series holds points.
      const asked = POINT_HOLD_MINUTES + 3;
      for (let m = 0; m < asked; m++) minute(m);
      // A reader asks: everything held is written, and the journal emptied.
      store.writer.writeHeld();
      expect(count("SELECT count(*) FROM metric_point_journal")).to.equal(0);
      for (let m = asked; m < asked + POINT_HOLD_MINUTES; m++) {
        minute(m);
        // The series whose turn it was, and no more.
        const turns = m - asked + 1;
        expect(Number(written.get(clock(asked * 60)))).to.be.at.most((turns * series) / POINT_HOLD_MINUTES);
      }
    });

    it("holds at most about MAX_HELD_POINTS points, however many series report", () => {
      // Enough series that ten minutes of their points are well past the bound.
      const series = Math.ceil((2.5 * MAX_HELD_POINTS) / (6 * POINT_HOLD_MINUTES));
      const perRequest = 500;
      let acknowledged = 0;
      let most = 0;
      for (let s = 0; s < POINT_HOLD_MINUTES * 60; s += 10) {
        const all = Array.from({ length: series }, (_, i) => counter(s, s, `{"route":"/${i}"}`));
        store.writer.transaction(() => {
          for (let i = 0; i < all.length; i += perRequest) {
            acknowledged += store.writer.writeMetrics(metricBatch("api", all.slice(i, i + perRequest)), clock(s));
          }
        });
        most = Math.max(most, acknowledged - count("SELECT count(*) FROM metric_points"));
      }
      expect(acknowledged).to.equal(series * POINT_HOLD_MINUTES * 6);
      // Past the bound, each series writes its points with the minute it leaves.
      expect(most).to.be.greaterThan(MAX_HELD_POINTS);
      expect(most).to.be.at.most(MAX_HELD_POINTS + 6 * series);
      store.writer.writeHeld();
      expect(count("SELECT count(*) FROM metric_points")).to.equal(acknowledged);
    });

    it("loses no held point to a stop after the journal was trimmed", () => {
      writeOnly(store, [counter(30, 1, '{"route":"/y"}')], store.writer, clock(30));
      writeOnly(store, [counter(60, 1, '{"route":"/x"}')], store.writer, clock(60));
      writeOnly(store, [counter(70, 2, '{"route":"/x"}')], store.writer, clock(70));
      // /y's minute is written and the journal trimmed below /x's first row.
      writeOnly(store, [counter(120, 1, '{"route":"/z"}')], store.writer, clock(120));
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(count("SELECT count(*) FROM metric_points")).to.equal(4);
    });

    it("keeps the journal short behind a series dated ahead of the clock", () => {
      writeOnly(store, [counter(86_400, 1, '{"route":"/future"}')], store.writer, clock(0));
      for (let s = 0; s < 1800; s += 10) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      // At most /a's points since its last turn, and a trim's worth.
      expect(count("SELECT count(*) FROM metric_point_journal")).to.be.at.most(6 * (POINT_HOLD_MINUTES + 2));
      expect(timesOf("/future")).to.deep.equal([86_400n]);
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(count("SELECT count(*) FROM metric_points")).to.equal(181);
    });

    it("keeps the journal short after a transaction that rolled back holding nothing", () => {
      // Spans only, or a failed request with nothing held: there is nothing to refold.
      expect(() =>
        store.writer.transaction(() => {
          throw new Error("disk full");
        }),
      ).to.throw("disk full");
      for (let s = 0; s < 1800; s += 10) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      expect(count("SELECT count(*) FROM metric_point_journal")).to.be.at.most(6 * (POINT_HOLD_MINUTES + 2));
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(count("SELECT count(*) FROM metric_points")).to.equal(180);
    });

    it("keeps the journal short when every series is dated ahead of the clock", () => {
      // A day ahead: past the clock's allowance, so no minute of it is ever released as behind
      // the clock; the series moves on to a later minute every sixth point all the same.
      for (let s = 0; s < 3600; s += 10) {
        writeOnly(store, [counter(86_400 + s, s, '{"route":"/ahead"}')], store.writer, clock(s));
      }
      expect(count("SELECT count(*) FROM metric_point_journal")).to.be.at.most(6 * (POINT_HOLD_MINUTES + 2));
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(count("SELECT count(*) FROM metric_points")).to.equal(360);
    });

    it("keeps through retention what only the journal has, after a rollback or a failed restart", () => {
      for (const restart of [false, true]) {
        store.close();
        store = testStore();
        // /cron reported at 0 s (written) and at 300 s (held, journaled, acknowledged).
        writeOnly(store, [counter(0, 1, '{"route":"/cron"}')], store.writer, clock(0));
        store.writer.writeHeld();
        writeOnly(store, [counter(300, 2, '{"route":"/cron"}'), counter(300, 1)], store.writer, clock(300));
        let writer = store.writer;
        if (restart) {
          // Killed; the next writer's first write of what was held fails.
          writer = new TelemetryWriter(store.db, 0n);
          store.db.exec(
            "CREATE TEMP TRIGGER full BEFORE UPDATE ON metric_series_last BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
          );
          expect(() => writer.writeHeld()).to.throw("full");
          store.db.exec("DROP TRIGGER full");
        } else {
          expect(() =>
            writer.transaction(() => {
              writer.writeMetrics(metricBatch("api", [counter(310, 2)]), clock(310));
              throw new Error("disk full");
            }),
          ).to.throw("disk full");
        }
        // Retention runs before the next write.
        new Retention(store.db, policy).trimByAge(T0 + 100n * S);
        writer.writeHeld();
        expect(timesOf("/cron"), `restart: ${restart}`).to.deep.equal([300n]);
      }
    });

    it("brings back no point retention deleted, and keeps the points counter true", () => {
      const retention = new Retention(store.db, policy);
      writeOnly(store, [counter(0, 1), counter(0, 1, '{"route":"/b"}')], store.writer, clock(0));
      // /a's minute is written; /b holds the journal row /a@0 is in.
      writeOnly(store, [counter(60, 2)], store.writer, clock(60));
      retention.trimByAge(T0 + 30n * S);
      writeOnly(store, [counter(70, 3)], store.writer, clock(70));
      store.writer.writeHeld();
      // /a@0 was held through the pass: written for the next one.
      expect(timesOf("/a")).to.deep.equal([0n, 60n, 70n]);
      retention.trimByAge(T0 + 30n * S);
      expect(timesOf("/a")).to.deep.equal([60n, 70n]);
      expect(store.counters().points).to.equal(BigInt(count("SELECT count(*) FROM metric_points")));
    });

    it("keeps the points counter true when held points retention passed are in the journal at a rollback", () => {
      const retention = new Retention(store.db, policy);
      for (const s of [0, 10, 20, 30]) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      retention.trimByAge(T0 + 15n * S);
      // Writes /a@0 and /a@10, held through the pass, for the next one.
      writeOnly(store, [counter(40, 40)], store.writer, clock(40));
      expect(() =>
        store.writer.transaction(() => {
          store.writer.writeMetrics(metricBatch("api", [counter(50, 50)]), clock(50));
          throw new Error("disk full");
        }),
      ).to.throw("disk full");
      store.writer.writeHeld();
      expect(timesOf("/a")).to.deep.equal([0n, 10n, 20n, 30n, 40n]);
      expect(store.counters().points).to.equal(5n);
      retention.trimByAge(T0 + 15n * S);
      expect(timesOf("/a")).to.deep.equal([20n, 30n, 40n]);
      expect(store.counters().points).to.equal(3n);
    });

    it("keeps the points counter true when held points retention passed are in the journal at a stop", () => {
      const retention = new Retention(store.db, policy);
      for (const s of [0, 10, 20, 30]) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      retention.trimByAge(T0 + 15n * S);
      writeOnly(store, [counter(40, 40)], store.writer, clock(40));
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(timesOf("/a")).to.deep.equal([0n, 10n, 20n, 30n, 40n]);
      retention.trimByAge(T0 + 16n * S);
      expect(timesOf("/a")).to.deep.equal([20n, 30n, 40n]);
      expect(store.counters().points).to.equal(BigInt(count("SELECT count(*) FROM metric_points")));
    });

    for (const how of ["a stop", "a rollback"]) {
      it(`brings back no point retention deleted while the journal still had it, at ${how}`, () => {
        const retention = new Retention(store.db, policy);
        // One minute: the journal is not trimmed while /a holds it.
        for (const s of [0, 10, 20, 30]) writeOnly(store, [counter(s, s)], store.writer, clock(s));
        retention.trimByAge(T0 + 15n * S);
        // Writes /a@0 to /a@30, held through the pass, for the next one, which deletes two.
        writeOnly(store, [counter(40, 40)], store.writer, clock(40));
        expect(retention.trimByAge(T0 + 15n * S).points).to.equal(2);
        let writer = store.writer;
        if (how === "a stop") writer = new TelemetryWriter(store.db, 0n);
        else {
          expect(() =>
            writer.transaction(() => {
              writer.writeMetrics(metricBatch("api", [counter(50, 50)]), clock(50));
              throw new Error("disk full");
            }),
          ).to.throw("disk full");
        }
        // The journal is replayed: /a@40 only was in it alone.
        writer.writeHeld();
        expect(timesOf("/a")).to.deep.equal([20n, 30n, 40n]);
        expect(store.counters().points).to.equal(3n);
      });
    }

    it("keeps through a stop the held points a pass found older than its cutoff, for the next pass", () => {
      const retention = new Retention(store.db, policy);
      for (const s of [0, 10, 20, 30]) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      // Nothing of /a is stored yet: the pass deletes nothing; killed before /a's points are written.
      expect(retention.trimByAge(T0 + 15n * S).points).to.equal(0);
      new TelemetryWriter(store.db, 0n).writeHeld();
      expect(timesOf("/a")).to.deep.equal([0n, 10n, 20n, 30n]);
      expect(store.counters().points).to.equal(4n);
      expect(retention.trimByAge(T0 + 15n * S).points).to.equal(2);
      expect(store.counters().points).to.equal(2n);
    });

    it("keeps a series' first time at its oldest point through size passes that found only held points", () => {
      for (let s = 0; s < 60; s += 10) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      // Nothing stored yet: each pass deletes nothing, and moves /a's first time to its cutoff.
      const bySize = new Retention(store.db, { maxAgeMs: 0, maxBytes: 1, batchRows: 100_000 });
      for (let pass = 0; pass < 3; pass++) expect(bySize.trimBySize().points).to.equal(0);
      // Written for the next pass, their first time with them.
      store.writer.writeHeld();
      expect(timesOf("/a")).to.deep.equal([0n, 10n, 20n, 30n, 40n, 50n]);
      expect(store.db.prepare("SELECT first_ns FROM metric_series").pluck().get()).to.equal(T0);
      expect(bySize.trimBySize().points).to.equal(6);
    });

    it("holds an on-time series' points its ten minutes beside an exporter running 90 s behind", () => {
      const writes: number[] = [];
      let before = 0;
      for (let s = 0; s < 1200; s += 10) {
        writeOnly(store, [counter(s, s)], store.writer, clock(s));
        if (s >= 90) writeOnly(store, [counter(s - 90, s, '{"route":"/lag"}')], store.writer, clock(s));
        const n = timesOf("/a").length;
        if (n !== before) writes.push(s);
        before = n;
      }
      // /a writes its points on its turns only: twice in 20 minutes.
      expect(writes.length, JSON.stringify(writes)).to.be.at.most(2);
    });

    it("goes on trimming by size past a series whose stored points are gone while it holds newer ones", () => {
      writeOnly(store, [counter(0, 1, '{"route":"/old"}')], store.writer, clock(0));
      store.writer.writeHeld();
      for (let s = 100; s < 300; s += 10) writeOnly(store, [counter(s, s)], store.writer, clock(s));
      store.writer.writeHeld();
      writeOnly(store, [counter(300, 2, '{"route":"/old"}')], store.writer, clock(300));
      new Retention(store.db, policy).trimByAge(T0 + 50n * S);
      const bySize = new Retention(store.db, { maxAgeMs: 0, maxBytes: 1, batchRows: 100_000 });
      expect(bySize.trimBySize().points).to.be.greaterThan(0);
      store.writer.writeHeld();
      expect(timesOf("/old")).to.deep.equal([300n]);
    });
  });
});

/**
 * Points without a recorded value: OTLP's NO_RECORDED_VALUE flag (a Prometheus staleness marker
 * through a collector), or a gauge or sum whose value is absent or NaN (which SQLite stores as
 * NULL). They are stored and counted like any point, and add nothing to their slot's rollups:
 * no point, no value, no increase, the next point's increase taken from the newest point that
 * had a value. The same however the points arrive: in order, late, or across a stop.
 */
describe("metric writer: points without a recorded value", () => {
  const NO_RECORDED_VALUE = 1;
  const gauge = (seconds: number, value: number | null, flags = 0) =>
    metricPoint({ timeNs: T0 + BigInt(seconds) * S, kind: "gauge", temporality: 0, monotonic: false, value, flags });
  const sum = (seconds: number, value: number | null, flags = 0) =>
    metricPoint({ timeNs: T0 + BigInt(seconds) * S, startNs: START, value, flags });
  /** The 60 s rows: slot, points, value sum, min, max, last, increase, resets. */
  const minuteRows = (store: Store) =>
    store.db
      .prepare(
        `SELECT slot, points, value_sum, value_min, value_max, value_last, increase, resets FROM metric_rollups
         WHERE width_s = 60 ORDER BY slot`,
      )
      .raw()
      .all();
  const MINUTE = (T0 + 0n) / S / 60n;
  /** Writes `points` in order, with one of them late, and in order across a stop: the three rows. */
  function threeWays(points: MetricPointRecord[], late: number): unknown[][] {
    const answers: unknown[][] = [];
    const inOrder = testStore();
    write(inOrder, points);
    answers.push(minuteRows(inOrder));
    inOrder.close();
    const withLate = testStore();
    write(
      withLate,
      points.filter((_, i) => i !== late),
    );
    write(withLate, [points[late] as MetricPointRecord]);
    answers.push(minuteRows(withLate));
    withLate.close();
    const stopped = testStore();
    // Each point in a transaction of its own, then a new writer (a stop without writing what
    // was held) before the last one.
    for (const point of points.slice(0, -1)) writeOnly(stopped, [point]);
    write(stopped, points.slice(-1), "api", new TelemetryWriter(stopped.db, 0n));
    answers.push(minuteRows(stopped));
    stopped.close();
    return answers;
  }

  it("a gauge's NaN or absent value adds nothing to its minute, in order, late or across a stop", () => {
    const points = [gauge(0, 1), gauge(10, Number.NaN), gauge(20, 3), gauge(30, null), gauge(60, 4)];
    const want = [
      [MINUTE, 2n, 4, 1, 3, 3, null, 0n],
      [MINUTE + 1n, 1n, 4, 4, 4, 4, null, 0n],
    ];
    for (const rows of threeWays(points, 1)) expect(rows).to.deep.equal(want);
    for (const rows of threeWays(points, 3)) expect(rows).to.deep.equal(want);
  });

  it("a counter's increase skips a point without a value: no reset, no lost growth", () => {
    // 10 counts whole (the series started after the collector did), then 20 more within the
    // first minute past the NaN point, and 15 past the staleness marker into the next.
    const points = [
      sum(0, 10),
      sum(10, Number.NaN),
      sum(20, 30),
      sum(40, null, NO_RECORDED_VALUE),
      sum(60, 40),
      sum(70, 45),
    ];
    const want = [
      [MINUTE, 2n, 40, 10, 30, 30, 30, 0n],
      [MINUTE + 1n, 2n, 85, 40, 45, 45, 15, 0n],
    ];
    for (const late of [1, 2, 3]) for (const rows of threeWays(points, late)) expect(rows).to.deep.equal(want);
  });

  /** A cumulative histogram's point: `counts` in the buckets of `bounds`. */
  const histogram = (seconds: number, counts: number[], { bounds = [1, 5], flags = 0 } = {}) => {
    const count = counts.reduce((a, b) => a + b, 0);
    return metricPoint({
      timeNs: T0 + BigInt(seconds) * S,
      startNs: START,
      kind: "histogram",
      temporality: 2,
      monotonic: false,
      value: null,
      count,
      sum: count * 2,
      bounds,
      bucketCounts: counts,
      flags,
    });
  };

  it("a histogram point flagged without a recorded value adds nothing to its minute", () => {
    const points = [
      histogram(0, [1, 2, 1]),
      histogram(10, [0, 0, 0], { flags: NO_RECORDED_VALUE }),
      histogram(20, [2, 3, 1]),
    ];
    // 4 observations count whole (as the counter's first point), then 2 more.
    for (const rows of threeWays(points, 1)) expect(rows).to.deep.equal([[MINUTE, 2n, null, null, null, null, 6, 0n]]);
  });

  it("a histogram with an infinite bound continues across a stop with no false reset", () => {
    // JSON keeps Infinity as null: the point read back after the stop has the bounds the store
    // holds, and so must the one folded as it arrives.
    const bounds = [1, Number.POSITIVE_INFINITY];
    const store = testStore();
    try {
      write(store, [histogram(0, [5, 5, 0], { bounds })]);
      write(store, [histogram(10, [6, 5, 0], { bounds })], "api", new TelemetryWriter(store.db, 0n));
      // 10 counted whole (the series started after the collector), then 1 more.
      expect(minuteRows(store)).to.deep.equal([[MINUTE, 2n, null, null, null, null, 11, 0n]]);
    } finally {
      store.close();
    }
  });

  it("stores and counts a point without a value, once however often it is sent", () => {
    const store = testStore();
    try {
      expect(write(store, [sum(0, 1), sum(10, null, NO_RECORDED_VALUE), sum(20, Number.NaN)])).to.equal(3);
      expect(write(store, [sum(10, null, NO_RECORDED_VALUE), sum(20, Number.NaN)])).to.equal(0);
      expect(store.db.prepare("SELECT count(*) FROM metric_points").pluck().get()).to.equal(3n);
      expect(store.counters().points).to.equal(3n);
    } finally {
      store.close();
    }
  });
});
