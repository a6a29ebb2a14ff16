import { expect } from "chai";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { PACK_GRACE_S, ROWS_PER_COMMIT } from "../../../daemon/store/metric-slot-packer.js";
import { PACK_ENTRY_SQL, PACK_STORED_COLUMNS, unpackEntries } from "../../../daemon/store/metric-slot-packs.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { testStore } from "../../helpers/store.js";

const S = 1_000_000_000n;
/** On a 900 s boundary: slot k of width 900 starts at T0 + k * 900 s. */
const T0 = 1_700_000_100n * S;
const SLOT0 = Number(T0 / (900n * S));

type Store = ReturnType<typeof testStore>;

function write(store: Store, points: MetricPointRecord[], writer = store.writer, receivedNs = 0n): number {
  return writer.transaction(() => writer.writeMetrics(metricBatch("api", points), receivedNs));
}

function counter(seconds: number, value: number, route = "/a", name = "requests"): MetricPointRecord {
  return metricPoint({
    name,
    timeNs: T0 + BigInt(seconds) * S,
    startNs: T0 - 3600n * S,
    value,
    attributes: JSON.stringify({ route }),
  });
}

/** Two series every 60 s for `minutes`, one commit per minute, as exporters send them. */
function writeMinutes(store: Store, minutes: number, writer = store.writer): void {
  for (let m = 0; m < minutes; m++) write(store, [counter(m * 60, m * 2), counter(m * 60 + 5, m * 3, "/b")], writer);
}

const packedSlots = (store: Store) =>
  (store.db.prepare("SELECT slot FROM metric_slot_packs ORDER BY slot").pluck().all() as bigint[]).map(
    (slot) => Number(slot) - SLOT0,
  );

/** The pack of a slot (relative to SLOT0) against the rows it was made from. */
function packAndRows(store: Store, slot: number): { pack: unknown[]; rows: unknown[] } {
  const stored = store.db
    .prepare(`SELECT ${PACK_STORED_COLUMNS.join(", ")} FROM metric_slot_packs WHERE width_s = 900 AND slot = ?`)
    .get(SLOT0 + slot) as Record<string, Buffer | null>;
  const rows = store.db
    .prepare(`SELECT ${PACK_ENTRY_SQL} FROM metric_rollups WHERE width_s = 900 AND slot = ? ORDER BY series_id`)
    .raw()
    .all(SLOT0 + slot) as unknown[][];
  const numbers = (row: unknown[]) => row.map((v, i) => (i === 2 || i === 3 || typeof v !== "bigint" ? v : Number(v)));
  return { pack: unpackEntries(stored), rows: rows.map(numbers) };
}

/** The 900 s rows of a slot (relative to SLOT0), by series. */
const slotRows = (store: Store, slot: number) =>
  store.db
    .prepare(
      "SELECT points, increase, value_last, resets FROM metric_rollups WHERE width_s = 900 AND slot = ? ORDER BY series_id",
    )
    .all(SLOT0 + slot);

describe("metric slot packer", () => {
  let store: Store;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it(`packs a 15-minute slot once its metric's points are ${PACK_GRACE_S} s past its end, equal to its rows`, () => {
    writeMinutes(store, 20);
    // Newest point at 19:05: slot 0 ended 4:05 before, inside the grace.
    expect(packedSlots(store)).to.deep.equal([]);
    writeMinutes(store, 21);
    expect(packedSlots(store)).to.deep.equal([0]);
    const { pack, rows } = packAndRows(store, 0);
    expect(rows).to.have.length(2);
    expect(pack).to.deep.equal(rows);
    // Merged from the minutes: 15 points each, /a from 0 to 28, /b from 0 to 42.
    expect(slotRows(store, 0)).to.deep.equal([
      { points: 15n, increase: 28, value_last: 28, resets: 0n },
      { points: 15n, increase: 42, value_last: 42, resets: 0n },
    ]);
    writeMinutes(store, 50);
    expect(packedSlots(store)).to.deep.equal([0, 1]);
    expect(packAndRows(store, 1).pack).to.deep.equal(packAndRows(store, 1).rows);
  });

  it("repacks a packed slot when a late point changes its rows", () => {
    writeMinutes(store, 21);
    const before = packAndRows(store, 0).pack;
    // Between 3:00 and 4:00 of /a, whose values went 6 then 8: a drop is a reset.
    write(store, [counter(210, 1)]);
    const after = packAndRows(store, 0);
    expect(after.pack).to.deep.equal(after.rows);
    expect(after.pack).to.not.deep.equal(before);
    // /a: 6 at 3:00, 1 at 3:30 (a reset, counted whole), 8 at 4:00 (+7): 28 - 2 + 1 + 7.
    expect(slotRows(store, 0)[0]).to.deep.equal({ points: 16n, increase: 34, value_last: 28, resets: 1n });
  });

  it("counts a series that reports after its metric's slot was packed", () => {
    writeMinutes(store, 21);
    write(store, [counter(100, 4, "/late"), counter(200, 9, "/late")]);
    const { pack, rows } = packAndRows(store, 0);
    expect(rows).to.have.length(3);
    expect(pack).to.deep.equal(rows);
  });

  it("packs a history written before packs existed, oldest first, none skipped", () => {
    const writer = new TelemetryWriter(store.db, 0n);
    writeMinutes(store, 200, writer);
    store.db.exec("DELETE FROM metric_slot_packs");
    // A new writer, as after an upgrade: packs from the first row's slot on.
    const restarted = new TelemetryWriter(store.db, 0n);
    write(store, [counter(200 * 60, 400)], restarted);
    expect(packedSlots(store)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const slot of packedSlots(store))
      expect(packAndRows(store, slot).pack).to.deep.equal(packAndRows(store, slot).rows);
  });

  it("merges minute rows written with trace ids alone, each exemplar at its row's newest point", () => {
    writeMinutes(store, 20);
    // Minute rows as builds before exemplar times wrote them: route /a's minute m holds trace "m".
    store.db
      .prepare("UPDATE metric_rollups SET exemplars = json_array(CAST(slot - ? AS TEXT)) WHERE width_s = 60")
      .run(BigInt(SLOT0 * 15));
    write(store, [counter(20 * 60, 40)]);
    expect(packedSlots(store)).to.deep.equal([0]);
    const merged = store.db
      .prepare("SELECT exemplars FROM metric_rollups WHERE width_s = 900 AND slot = ? ORDER BY series_id")
      .pluck()
      .all(SLOT0) as string[];
    const minute = (m: number, route = 0) => [String(m), String(T0 + BigInt(m * 60 + route) * S)];
    expect(merged.map((text) => JSON.parse(text))).to.deep.equal([
      [minute(14), minute(13), minute(12)],
      [minute(14, 5), minute(13, 5), minute(12, 5)],
    ]);
    const { pack, rows } = packAndRows(store, 0);
    expect(pack).to.deep.equal(rows);
  });

  it("merges a bounded number of minute rows a commit while it catches up on a history", () => {
    // 100 series for 200 minutes: 1,500 minute rows a slot, slots 0 to 12 closed.
    const routes = Array.from({ length: 100 }, (_, i) => `/r${i}`);
    for (let m = 0; m < 200; m++)
      write(
        store,
        routes.map((route) => counter(m * 60, m, route)),
      );
    store.db.exec("DELETE FROM metric_slot_packs");
    const restarted = new TelemetryWriter(store.db, 0n);
    write(store, [counter(200 * 60, 200)], restarted);
    const first = Math.ceil(ROWS_PER_COMMIT / 1500);
    expect(first).to.be.lessThan(13);
    expect(packedSlots(store)).to.deep.equal(Array.from({ length: first }, (_, i) => i));
    write(store, [counter(201 * 60, 201)], restarted);
    expect(packedSlots(store)).to.have.length(Math.min(13, 2 * first));
    for (const slot of packedSlots(store))
      expect(packAndRows(store, slot).pack).to.deep.equal(packAndRows(store, slot).rows);
  });

  it("does not let one sender's clock running ahead close the slots others are writing", () => {
    const received = (seconds: number) => T0 + BigInt(seconds) * S;
    for (let m = 0; m < 5; m++) write(store, [counter(m * 60, m)], store.writer, received(m * 60));
    // Three hours ahead of the collector's clock.
    write(store, [counter(3 * 3600, 7, "/skewed")], store.writer, received(5 * 60));
    write(store, [counter(6 * 60, 6)], store.writer, received(6 * 60));
    expect(packedSlots(store)).to.deep.equal([]);
    // Once the clock itself is past slot 0's end and the grace, slot 0 is packed.
    write(store, [counter(21 * 60, 21)], store.writer, received(21 * 60));
    expect(packedSlots(store)).to.deep.equal([0]);
  });

  it("packs again what a rolled-back transaction packed", () => {
    writeMinutes(store, 20);
    // The transaction fails after the metric writer's flush packed slot 0, as a full disk at
    // the counters' update would.
    store.db.exec(`CREATE TEMP TRIGGER fail_late BEFORE UPDATE ON counters WHEN NEW.name = 'points'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    expect(() => write(store, [counter(20 * 60, 40)])).to.throw("disk full");
    store.db.exec("DROP TRIGGER fail_late");
    expect(packedSlots(store)).to.deep.equal([]);
    write(store, [counter(20 * 60, 40)]);
    expect(packedSlots(store)).to.deep.equal([0]);
    expect(packAndRows(store, 0).pack).to.deep.equal(packAndRows(store, 0).rows);
  });
});
