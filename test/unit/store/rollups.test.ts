import type Database from "better-sqlite3";
import { expect } from "chai";
import { RollupWindowReader } from "../../../daemon/query/rollup-window.js";
import {
  addSpan,
  emptyOperationRollup,
  mergeStored,
  type OperationRollup,
  type StoredOperationRollup,
} from "../../../daemon/store/operation-rollup.js";
import { Retention } from "../../../daemon/store/retention.js";
import { COMPACT_AT } from "../../../daemon/store/rollup-buffer.js";
import { HOUR_NS, MINUTE_NS } from "../../../daemon/store/rollup-slots.js";
import { MIGRATIONS, migrate } from "../../../daemon/store/schema.js";
import { idHex } from "../../../daemon/store/stored-ids.js";
import { hexId, logsRequest, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { copyAtVersion, type TestStore, testStore } from "../../helpers/store.js";

const BASE = 1_700_000_000n * 1_000_000_000n; // 22:13:20 UTC: windows fall across slot edges
const SERVICES = ["api", "db", "web"];
const NAMES = ["GET /", "POST /cart", "query", "render"];

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Spans over three hours, some exactly on minute and hour edges, written in batches with resends. */
function fill(store: TestStore, seed: number): void {
  const next = random(seed);
  let sent: { service: string; spans: SpanSpec[] }[] = [];
  for (let i = 0; i < 1500; i++) {
    const edge = i % 50 === 0;
    const startNs =
      BASE + (edge ? BigInt(Math.floor(next() * 180)) * MINUTE_NS : BigInt(Math.floor(next() * 3 * 3.6e12)));
    const span: SpanSpec = {
      traceId: hexId(Math.floor(i / 3), 16),
      spanId: hexId(i, 8),
      name: NAMES[Math.floor(next() * NAMES.length)] as string,
      startNs,
      durationNs: BigInt(Math.floor(10 ** (3 + next() * 6))),
    };
    sent.push({ service: SERVICES[Math.floor(next() * SERVICES.length)] as string, spans: [span] });
    if (sent.length === 40) {
      for (const { service, spans } of sent) store.writeTraces(traceRequest(service, spans));
      // Resending a batch must not count its spans twice.
      for (const { service, spans } of sent.slice(0, 5)) store.writeTraces(traceRequest(service, spans));
      sent = [];
    }
  }
  for (const { service, spans } of sent) store.writeTraces(traceRequest(service, spans));
  const logs = Array.from({ length: 800 }, (_, i) => ({
    service: SERVICES[i % 3] as string,
    timeNs: BASE + BigInt(Math.floor(next() * 3 * 3.6e12)),
    severityNumber: [5, 9, 13, 17, 21][Math.floor(next() * 5)] as number,
  }));
  for (const log of logs) store.writeLogs(logsRequest(log.service, [{ ...log, body: `log ${log.timeNs}` }]));
}

/** The same figures straight from the rows. */
function bruteOperations(store: TestStore, from: bigint, to: bigint) {
  const byKey = new Map<string, OperationRollup>();
  const rows = store.db
    .prepare(
      `SELECT s.service_id, n.name, s.start_ns, CASE WHEN s.duration_ns > 0 THEN s.duration_ns ELSE 0 END,
         ${idHex("s.span_id")}, ${idHex("t.trace_id")} FROM spans s JOIN traces t ON t.trace_key = s.trace_key
         JOIN span_names n ON n.id = s.name_id WHERE s.start_ns > ? AND s.start_ns <= ?`,
    )
    .raw()
    .all(from, to) as [bigint, string, bigint, bigint, string, string][];
  for (const [serviceId, name, startNs, durationNs, spanId, traceId] of rows) {
    const key = `${serviceId}\u0000${name}`;
    const rollup = byKey.get(key) ?? emptyOperationRollup();
    addSpan(rollup, startNs, Number(durationNs), spanId, traceId);
    byKey.set(key, rollup);
  }
  return byKey;
}

function bruteLogs(store: TestStore, from: bigint, to: bigint) {
  return new Map(
    (
      store.db
        .prepare(
          `SELECT service_id, count(*), sum(severity_number >= 13 AND severity_number < 17), sum(severity_number >= 17), max(ts_ns)
           FROM logs WHERE ts_ns > ? AND ts_ns <= ? GROUP BY service_id`,
        )
        .raw()
        .all(from, to) as [bigint, bigint, bigint, bigint, bigint][]
    ).map(([id, logs, warnings, errors, newest]) => [
      Number(id),
      { logs: Number(logs), warnings: Number(warnings), errors: Number(errors), newestNs: newest },
    ]),
  );
}

function bruteServices(store: TestStore, from: bigint, to: bigint) {
  return new Map(
    (
      store.db
        .prepare(
          "SELECT service_id, count(*), max(start_ns) FROM spans WHERE start_ns > ? AND start_ns <= ? GROUP BY service_id",
        )
        .raw()
        .all(from, to) as [bigint, bigint, bigint][]
    ).map(([id, spans, newest]) => [Number(id), { spans: Number(spans), newestNs: newest }]),
  );
}

function expectWindowsMatch(store: TestStore, seed: number): void {
  const reader = new RollupWindowReader(store.db, null);
  const next = random(seed);
  const windows: [bigint, bigint][] = [
    [BASE - HOUR_NS, BASE + 4n * HOUR_NS],
    [BASE + HOUR_NS, BASE + 2n * HOUR_NS],
    [BASE + 17n * MINUTE_NS, BASE + 17n * MINUTE_NS + 1n],
  ];
  for (let i = 0; i < 25; i++) {
    const from = BASE + BigInt(Math.floor(next() * 3 * 3.6e12));
    windows.push([from, from + BigInt(Math.floor(next() * 2.5 * 3.6e12))]);
  }
  for (const [from, to] of windows) {
    const label = `window (${from - BASE}, ${to - BASE}]`;
    const read = reader.operations(from, to, 1000);
    const got = new Map(read.operations.map((o) => [`${o.serviceId}\u0000${o.name}`, o.rollup]));
    expect(got, label).to.deep.equal(bruteOperations(store, from, to));
    expect(reader.logs(from, to), label).to.deep.equal(bruteLogs(store, from, to));
    expect(reader.services(from, to), label).to.deep.equal(bruteServices(store, from, to));
  }
}

describe("audit rollups", () => {
  let store: TestStore;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("answer any window exactly as the raw rows do: counts, newest, histograms and slowest spans", () => {
    fill(store, 11);
    expectWindowsMatch(store, 12);
  });

  it("still match after retention trimmed the oldest telemetry part way through a slot", () => {
    fill(store, 21);
    const retention = new Retention(store.db, { maxAgeMs: 1e12, maxBytes: 1024 ** 3, batchRows: 137 });
    // Age retention as if 2 h 40 min after BASE+... keeps the last 75 minutes and a bit.
    const nowNs = BASE + 3n * HOUR_NS + 42n * MINUTE_NS + 7n;
    const young = new Retention(store.db, { ...retention.policy, maxAgeMs: 2 * 3_600_000 });
    while (young.trimByAge(nowNs).spans + young.trimByAge(nowNs).logs > 0) {}
    const oldest = store.db.prepare("SELECT min(start_ns) FROM spans").pluck().get() as bigint;
    expect(oldest > BASE + HOUR_NS).to.equal(true);
    // Fully trimmed slots are gone from the tables.
    const stale = store.db
      .prepare("SELECT count(*) FROM span_rollups WHERE slot + width <= ?")
      .pluck()
      .get(oldest) as bigint;
    expect(stale).to.equal(0n);
    expectWindowsMatch(store, 22);
  });

  it("still match after size trimming deleted rows in storage order, earlier rows by time surviving", () => {
    fill(store, 23);
    // Rows were stored in random time order, so the first stored span anywhere in three hours.
    const retention = new Retention(store.db, { maxAgeMs: 1e12, maxBytes: 1, batchRows: 137 });
    const trimmed = { spans: 0, logs: 0 };
    for (let i = 0; i < 8; i++) {
      const step = retention.trimBySize();
      trimmed.spans += step.spans;
      trimmed.logs += step.logs;
    }
    expect(trimmed.spans).to.be.greaterThan(0);
    expect(trimmed.logs).to.be.greaterThan(0);
    expectWindowsMatch(store, 24);
  });

  it("count only the spans still stored when spans keep arriving for slots retention emptied", () => {
    const span = (n: number, startNs: bigint) =>
      traceRequest("api", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), name: "GET /", startNs }]);
    for (let n = 0; n < 5; n++) store.writeTraces(span(n, BASE + BigInt(n)));
    const trimmed = new Retention(store.db, { maxAgeMs: 1000, maxBytes: 1024 ** 3, batchRows: 100 }).trimByAge(
      BASE + MINUTE_NS,
    );
    expect(trimmed.spans).to.equal(5);
    store.writeTraces(span(10, BASE + 10n));
    const rows = store.db.prepare("SELECT width, spans FROM span_rollups ORDER BY width, slot").raw().all();
    // Only span 10 is left: its slots count it alone, not the five deleted before it.
    expect(rows).to.deep.equal([
      [MINUTE_NS, 1n],
      [HOUR_NS, 1n],
    ]);
  });

  it("merge an operation's rows of a slot once it has gathered COMPACT_AT of them", () => {
    const rowsPerSlot = () =>
      store.db
        .prepare("SELECT width, count(*), sum(spans) FROM span_rollups GROUP BY width, slot, service_id, name")
        .raw()
        .all();
    // Each request is its own commit, so each adds one row per slot it touches.
    for (let n = 0; n < COMPACT_AT - 1; n++) {
      store.writeTraces(
        traceRequest("api", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: BASE + BigInt(n) }]),
      );
    }
    expect(rowsPerSlot()).to.deep.equal([
      [MINUTE_NS, BigInt(COMPACT_AT - 1), BigInt(COMPACT_AT - 1)],
      [HOUR_NS, BigInt(COMPACT_AT - 1), BigInt(COMPACT_AT - 1)],
    ]);
    const next = COMPACT_AT - 1;
    store.writeTraces(traceRequest("api", [{ traceId: hexId(next, 16), spanId: hexId(next, 8), startNs: BASE }]));
    expect(rowsPerSlot()).to.deep.equal([
      [MINUTE_NS, 1n, BigInt(COMPACT_AT)],
      [HOUR_NS, 1n, BigInt(COMPACT_AT)],
    ]);
    const reader = new RollupWindowReader(store.db, null);
    const [operation] = reader.operations(BASE - HOUR_NS, BASE + 2n * HOUR_NS, 10).operations;
    expect(operation?.rollup).to.deep.equal(
      bruteOperations(store, BASE - HOUR_NS, BASE + 2n * HOUR_NS)
        .values()
        .next().value,
    );
  });

  it("a migrated version-1 store gets the same rollups and orphans as one written since", () => {
    fill(store, 31);
    store.writeTraces(
      traceRequest("api", [
        { traceId: hexId(9000, 16), spanId: hexId(9001, 8), parentSpanId: hexId(9002, 8), startNs: BASE },
      ]),
    );
    // Span rollups as their slots add up: the migration writes fewer, fuller rows than commits do.
    const spanSlots = (db: Database.Database) => {
      const slots = new Map<string, OperationRollup>();
      const rows = db
        .prepare("SELECT width, slot, service_id, name, spans, newest_ns, max_ns, histogram, slowest FROM span_rollups")
        .all() as (StoredOperationRollup & { width: bigint; slot: bigint; service_id: bigint; name: string })[];
      for (const row of rows) {
        const key = `${row.width}:${row.slot}:${row.service_id}:${row.name}`;
        const rollup = slots.get(key) ?? emptyOperationRollup();
        mergeStored(rollup, row);
        slots.set(key, rollup);
      }
      return [...slots].sort(([a], [b]) => (a < b ? -1 : 1));
    };
    const tables = (db: Database.Database) => [
      spanSlots(db),
      ...["log_rollups", "orphan_spans"].map((table) =>
        db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4`).raw().all(),
      ),
    ];
    const written = tables(store.db);
    expect((written[2] as unknown[]).length).to.equal(1);
    // The same data as version 1 stored it, without what version 2 added.
    const path = `${store.path}.v1`;
    const old = copyAtVersion(store.db, path, 1);
    try {
      expect(migrate(old, path)).to.deep.equal(MIGRATIONS.slice(1).map((step) => step.version));
      expect(tables(old)).to.deep.equal(written);
    } finally {
      old.close();
    }
  });
});

describe("spans waiting for their parent", () => {
  let store: TestStore;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  const orphans = () =>
    store.db
      .prepare(`SELECT ${idHex("span_id")}, ${idHex("parent_span_id")} FROM orphan_spans ORDER BY span_id`)
      .raw()
      .all();
  const trace = hexId(1, 16);
  const [root, child, grandchild, stray] = [1, 2, 3, 4].map((n) => hexId(n, 8)) as [string, string, string, string];

  it("are kept until the parent arrives, in any order and across requests", () => {
    store.writeTraces(
      traceRequest("api", [{ traceId: trace, spanId: grandchild, parentSpanId: child, startNs: BASE }]),
    );
    store.writeTraces(
      traceRequest("api", [{ traceId: trace, spanId: stray, parentSpanId: hexId(99, 8), startNs: BASE }]),
    );
    expect(orphans()).to.deep.equal([
      [grandchild, child],
      [stray, hexId(99, 8)],
    ]);
    // The child arrives, itself before its parent: the grandchild is adopted, the child waits.
    store.writeTraces(traceRequest("api", [{ traceId: trace, spanId: child, parentSpanId: root, startNs: BASE }]));
    expect(orphans()).to.deep.equal([
      [child, root],
      [stray, hexId(99, 8)],
    ]);
    // Root and a resent child in one request: the child is adopted and not stored twice.
    store.writeTraces(
      traceRequest("api", [
        { traceId: trace, spanId: root, startNs: BASE },
        { traceId: trace, spanId: child, parentSpanId: root, startNs: BASE },
      ]),
    );
    expect(orphans()).to.deep.equal([[stray, hexId(99, 8)]]);
  });

  it("are not recorded when the parent comes in the same request or is already stored", () => {
    store.writeTraces(
      traceRequest("api", [
        { traceId: trace, spanId: child, parentSpanId: root, startNs: BASE },
        { traceId: trace, spanId: root, startNs: BASE },
      ]),
    );
    store.writeTraces(
      traceRequest("api", [{ traceId: trace, spanId: grandchild, parentSpanId: child, startNs: BASE }]),
    );
    expect(orphans()).to.deep.equal([]);
  });

  it("leave the table when retention deletes them", () => {
    store.writeTraces(traceRequest("api", [{ traceId: trace, spanId: stray, parentSpanId: root, startNs: BASE }]));
    new Retention(store.db, { maxAgeMs: 1000, maxBytes: 1024 ** 3, batchRows: 10 }).trimByAge(BASE + HOUR_NS);
    expect(orphans()).to.deep.equal([]);
  });
});
