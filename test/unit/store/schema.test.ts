import { createHash } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { decodeLogRequest, decodeMetricRequest, decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import type { MetricPointRecord } from "../../../daemon/otlp/records.js";
import { RollupWindowReader } from "../../../daemon/query/rollup-window.js";
import { registerAttributeFunctions } from "../../../daemon/query/sql-parts.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { MetricIdentity } from "../../../daemon/query/telemetry-reader.js";
import { SAMPLE } from "../../../daemon/store/attribute-values.js";
import { openWriteConnection } from "../../../daemon/store/connection.js";
import { emptyOperationRollup, mergeStored, type SlowSpan } from "../../../daemon/store/operation-rollup.js";
import { decodePostingRows } from "../../../daemon/store/posting-rows.js";
import { Retention } from "../../../daemon/store/retention.js";
import {
  MIGRATIONS,
  type Migration,
  migrate,
  PAGE_SIZE,
  SCHEMA_VERSION,
  StoreVersionError,
} from "../../../daemon/store/schema.js";
import { StoreOpenError } from "../../../daemon/store/store-errors.js";
import { idHex, optionalIdHex } from "../../../daemon/store/stored-ids.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { attributeList, hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { schemaShape } from "../../helpers/schema-shape.js";
import { columnBeforeV12, columnBeforeV18, copyAtVersion, readWithIdsAsBytes, testStore } from "../../helpers/store.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** The versions a store at `version` migrates through. */
/** Answers read through a new connection, as the collector's query thread opens one after an upgrade. */
function readAfresh<T>(path: string, answers: (reader: SqliteReader) => T): T {
  const db = new Database(path);
  try {
    db.defaultSafeIntegers(true);
    return answers(new SqliteReader(db));
  } finally {
    db.close();
  }
}

function versionsAfter(version: number): number[] {
  return MIGRATIONS.filter((step) => step.version > version).map((step) => step.version);
}

describe("store schema", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("creates a new file at the newest schema version in WAL mode", () => {
    const path = join(dir.path, "nested", "t.sqlite");
    const { db, migrated } = openWriteConnection(path);
    expect(migrated).to.deep.equal(MIGRATIONS.map((step) => step.version));
    expect(db.pragma("user_version", { simple: true })).to.equal(BigInt(SCHEMA_VERSION));
    expect(db.pragma("journal_mode", { simple: true })).to.equal("wal");
    expect(db.pragma("auto_vacuum", { simple: true })).to.equal(2n); // incremental
    expect(db.pragma("page_size", { simple: true })).to.equal(BigInt(PAGE_SIZE));
    db.close();
    const again = openWriteConnection(path);
    expect(again.migrated).to.deep.equal([]);
    again.db.close();
  });

  it("refuses a file written by a newer obs and leaves it untouched", () => {
    const path = join(dir.path, "newer.sqlite");
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openWriteConnection(path)).to.throw(StoreVersionError, /newer obs/);
    const check = new Database(path);
    expect(check.pragma("user_version", { simple: true })).to.equal(SCHEMA_VERSION + 1);
    check.close();
  });

  for (const table of ["notes", "services"]) {
    it(`refuses another application's database (a table ${table}, no schema version) and leaves it untouched`, () => {
      const path = join(dir.path, "notes.db");
      const db = new Database(path);
      db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO ${table} (text) VALUES ('milk')`);
      db.close();
      chmodSync(path, 0o644);
      const before = readFileSync(path);
      expect(() => openWriteConnection(path)).to.throw(StoreOpenError, `${path} is not an obs store`);
      expect(readFileSync(path).equals(before)).to.equal(true);
      expect(statSync(path).mode & 0o777).to.equal(0o644);
      expect(readdirSync(dir.path)).to.deep.equal(["notes.db"]);
    });
  }

  it("refuses another application's database that numbers its own schema, and leaves it untouched", () => {
    const path = join(dir.path, "notes.db");
    const db = new Database(path);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('milk')");
    db.pragma("user_version = 3");
    db.close();
    chmodSync(path, 0o644);
    const before = readFileSync(path);
    expect(() => openWriteConnection(path)).to.throw(StoreOpenError, `${path} is not an obs store`);
    expect(readFileSync(path).equals(before)).to.equal(true);
    expect(statSync(path).mode & 0o777).to.equal(0o644);
  });

  it("refuses a file that is not a SQLite database and leaves it untouched", () => {
    const path = join(dir.path, "notes.txt");
    writeFileSync(path, "milk\neggs\n".repeat(100), { mode: 0o644 });
    expect(() => openWriteConnection(path)).to.throw(StoreOpenError, `${path} is not an obs store`);
    expect(readFileSync(path, "utf8")).to.equal("milk\neggs\n".repeat(100));
    expect(statSync(path).mode & 0o777).to.equal(0o644);
  });

  it("makes a new store of an empty database (no schema version, no tables)", () => {
    const path = join(dir.path, "empty.sqlite");
    const db = new Database(path);
    db.exec("CREATE TABLE t (x); DROP TABLE t");
    db.close();
    const { db: store, migrated } = openWriteConnection(path);
    expect(migrated).to.deep.equal(MIGRATIONS.map((step) => step.version));
    store.close();
  });

  it("migrates an older file forward step by step, keeping its data", () => {
    const path = join(dir.path, "old.sqlite");
    const v1: Migration = { version: 1, description: "t", up: (db) => db.exec("CREATE TABLE t (x INTEGER)") };
    const v2: Migration = {
      version: 2,
      description: "t.y",
      up: (db) => db.exec("ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'n'"),
    };
    const db = new Database(path);
    expect(migrate(db, path, [v1])).to.deep.equal([1]);
    db.exec("INSERT INTO t (x) VALUES (7)");
    const upgrades: number[][] = [];
    expect(migrate(db, path, [v1, v2], { onUpgrade: (from, to) => upgrades.push([from, to]) })).to.deep.equal([2]);
    // Announced before it runs, and only for a file that had data (version 0 is a new file).
    expect(upgrades).to.deep.equal([[1, 2]]);
    expect(db.prepare("SELECT x, y FROM t").get()).to.deep.equal({ x: 7, y: "n" });
    expect(db.pragma("user_version", { simple: true })).to.equal(2);
    db.close();
  });

  it("migrates a version-1 store to the same schema as a new one, keeping every row", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      store.writeTraces(
        traceRequest("api", [
          { traceId: hexId(1, 16), spanId: hexId(10, 8), startNs: T0, attributes: { "http.route": "/a" } },
          { traceId: hexId(1, 16), spanId: hexId(11, 8), parentSpanId: hexId(10, 8), startNs: T0 + 5n, error: true },
          // Its parent never arrives: an orphan once version 2 looks for them.
          { traceId: hexId(2, 16), spanId: hexId(20, 8), parentSpanId: hexId(99, 8), startNs: T0 + 9n },
        ]),
      );
      store.writeTraces(traceRequest("db", [{ traceId: hexId(1, 16), spanId: hexId(12, 8), startNs: T0 + 7n }]));
      store.writeLogs(
        logsRequest("api", [
          { timeNs: T0 + 1n, body: "started", attributes: { user: "u1" } },
          { timeNs: T0 + 2n, body: "slow", severityNumber: 13, traceId: hexId(1, 16), spanId: hexId(10, 8) },
        ]),
      );
      const path = join(dir.path, "v1.sqlite");
      const db = copyAtVersion(store.db, path, 1);
      try {
        const tables = db
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
          .pluck()
          .all() as string[];
        // Every table of version 1, read with its version-1 columns; trace_services then named
        // traces by id, later by key.
        const columnsAtV1 = new Map(
          tables.map((table) => [
            table,
            db.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid").pluck().all(table) as string[],
          ]),
        );
        const rows = (keyed: boolean) =>
          Object.fromEntries(
            tables.map((table) => {
              if (table === "trace_services") {
                const join = keyed ? "t.trace_key = ts.trace_key" : "t.trace_id = ts.trace_id";
                return [
                  table,
                  db
                    .prepare(
                      `SELECT ${keyed ? idHex("t.trace_id") : "t.trace_id"} AS trace_id, ts.service_id FROM trace_services ts JOIN traces t ON ${join} ORDER BY 1, 2`,
                    )
                    .all(),
                ];
              }
              // Once migrated (version 12 on), columns read as version 1 stored them.
              const columns = (columnsAtV1.get(table) ?? []).join(", ");
              const selected = (columnsAtV1.get(table) ?? [])
                .map((c) => {
                  if (!keyed) return c;
                  const read = columnBeforeV12(table, c, { schema: "", attributesJson: "obs_attributes_json" });
                  return read === c ? c : `${read} AS ${c}`;
                })
                .join(", ");
              return [table, db.prepare(`SELECT ${selected} FROM ${table} ORDER BY ${columns}`).all()];
            }),
          );
        const before = rows(false);
        for (const table of tables) expect(before[table], table).to.not.be.empty;

        expect(migrate(db, path)).to.deep.equal(versionsAfter(1));
        expect(schemaShape(db)).to.deep.equal(schemaShape(store.db));
        registerAttributeFunctions(db);
        const after = rows(true);
        // Version 8 added the metric counters, version 10 the bound of what retention may have
        // trimmed (its own test checks it).
        const added = ["points", "series", "spans_trimmed_through_ns", "logs_trimmed_through_ns"];
        const counters = after.counters as { name: string }[];
        expect(counters.filter((row) => added.includes(row.name))).to.have.length(4);
        after.counters = counters.filter((row) => !added.includes(row.name));
        // Version 11 coded the postings' row ids (posting-rows.ts): the same ids.
        for (const table of ["span_postings", "log_postings"]) {
          after[table] = (after[table] as { first_row: bigint; rows: Buffer }[]).map((entry) => ({
            ...entry,
            rows: JSON.stringify(decodePostingRows(entry.rows, Number(entry.first_row))),
          }));
        }
        for (const table of Object.keys(before)) expect(after[table], table).to.deep.equal(before[table]);
        expect(after).to.deep.equal(before);
        // Version 2 built the audit's tables from the rows already there, as the writer builds them.
        const rolledUp = (from: Database.Database) => ({
          spans: from.prepare("SELECT width, sum(spans) FROM span_rollups GROUP BY width ORDER BY width").raw().all(),
          logs: from
            .prepare("SELECT width, sum(logs), sum(warnings) FROM log_rollups GROUP BY width ORDER BY width")
            .raw()
            .all(),
          orphans: from.prepare("SELECT trace_id, span_id, parent_span_id FROM orphan_spans ORDER BY 1, 2").all(),
        });
        expect(rolledUp(db)).to.deep.equal(rolledUp(store.db));
        expect(rolledUp(db).orphans).to.have.length(1);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("lets a version-3 file keep several rollup rows per operation and slot once at version 4", () => {
    const path = join(dir.path, "v3.sqlite");
    const db = new Database(path);
    migrate(db, path, MIGRATIONS.slice(0, 3));
    // As obs before version 4 wrote it.
    db.exec(`DROP INDEX span_rollups_by_slot;
      CREATE UNIQUE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name)`);
    const row = "INSERT INTO span_rollups VALUES (60, 0, 1, 'GET /', 1, 0, 0, x'', '[]')";
    db.exec(row);
    expect(() => db.exec(row)).to.throw(/UNIQUE/);
    expect(migrate(db, path)).to.deep.equal(versionsAfter(3));
    db.exec(row);
    expect(db.prepare("SELECT count(*) FROM span_rollups").pluck().get()).to.equal(2);
    db.close();
  });

  it("moves a version-4 store to trace keys, keeping every span, trace, service link and row id", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    const spans = (trace: number, count: number, service: string) =>
      traceRequest(
        service,
        Array.from({ length: count }, (_, i) => ({
          traceId: hexId(trace, 16),
          spanId: hexId(trace * 100 + i, 8),
          ...(i > 0 ? { parentSpanId: hexId(trace * 100, 8) } : {}),
          startNs: T0 + BigInt(trace * 1000 + i),
        })),
      );
    try {
      for (let trace = 1; trace <= 5; trace++) store.writeTraces(spans(trace, 3, trace % 2 ? "api" : "db"));
      // A second service on trace 2.
      store.writeTraces(
        traceRequest("web", [
          { traceId: hexId(2, 16), spanId: hexId(299, 8), parentSpanId: hexId(200, 8), startNs: T0 + 2999n },
        ]),
      );
      store.writeTraces(spans(9, 2, "api"));
      // The newest spans were deleted: row ids must still not be handed out again.
      store.db.exec(
        "DELETE FROM spans WHERE trace_key = (SELECT trace_key FROM traces ORDER BY start_ns DESC LIMIT 1)",
      );
      const sequence = store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'spans'").pluck().get();
      const path = join(dir.path, "v4.sqlite");
      const db = copyAtVersion(store.db, path, 4);
      try {
        const snapshot = (from: Database.Database, keyed: boolean) => ({
          spans: from
            .prepare(
              // From version 12 a span names its trace by key alone, from 19 its name by id.
              keyed
                ? `SELECT s.id, ${idHex("t.trace_id")} AS trace_id, ${idHex("s.span_id")} AS span_id, ${optionalIdHex("s.parent_span_id")} AS parent_span_id, n.name, s.start_ns FROM spans s JOIN traces t ON t.trace_key = s.trace_key JOIN span_names n ON n.id = s.name_id ORDER BY s.id`
                : "SELECT id, trace_id, span_id, parent_span_id, name, start_ns FROM spans ORDER BY id",
            )
            .all(),
          traces: from
            .prepare(
              keyed
                ? `SELECT ${idHex("trace_id")} AS trace_id, span_count, ${optionalIdHex("root_span_id")} AS root_span_id FROM traces ORDER BY trace_id`
                : "SELECT trace_id, span_count, root_span_id FROM traces ORDER BY trace_id",
            )
            .all() as Record<string, unknown>[],
          services: from
            .prepare(
              `SELECT ${keyed ? idHex("t.trace_id") : "t.trace_id"} AS trace_id, v.name FROM trace_services ts JOIN traces t ON ${
                keyed ? "t.trace_key = ts.trace_key" : "t.trace_id = ts.trace_id"
              } JOIN services v ON v.id = ts.service_id ORDER BY 1, 2`,
            )
            .all(),
        });
        const before = snapshot(db, false);
        expect(before.services).to.have.length(7);
        // Spans whose trace summary went missing (none should) still migrate, and get one.
        const lost = hexId(4, 16);
        db.prepare("DELETE FROM traces WHERE trace_id = ?").run(lost);
        expect(migrate(db, path)).to.deep.equal(versionsAfter(4));
        const after = snapshot(db, true);
        expect(after.spans).to.deep.equal(before.spans);
        expect(after.services).to.deep.equal(before.services);
        expect(after.traces).to.deep.equal(
          before.traces.map((trace) => (trace.trace_id === lost ? { ...trace, root_span_id: null } : trace)),
        );
        expect(db.prepare("SELECT value FROM counters WHERE name = 'traces'").pluck().get()).to.equal(
          BigInt(after.traces.length),
        );
        expect(db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'spans'").pluck().get()).to.equal(sequence);
        // Keys follow start times (a repaired summary comes last), and every span refers to its trace's key.
        const keys = db
          .prepare(`SELECT ${idHex("trace_id")} FROM traces ORDER BY trace_key`)
          .pluck()
          .all();
        const byStart = db
          .prepare(`SELECT ${idHex("trace_id")} FROM traces ORDER BY start_ns`)
          .pluck()
          .all();
        expect(keys).to.deep.equal([...byStart.filter((id) => id !== lost), lost]);
        expect(
          db
            .prepare(
              // Each span's key names a trace (that it is the span's own trace the snapshots above show).
              "SELECT count(*) FROM spans s JOIN traces t ON t.trace_key = s.trace_key",
            )
            .pluck()
            .get(),
        ).to.equal(BigInt(before.spans.length));

        // Writing goes on: a resend adds nothing, a late span joins its trace, new ids are past the old sequence.
        const writer = new TelemetryWriter(db, 0n);
        const write = (request: unknown) =>
          writer.transaction(() =>
            writer.writeSpans(decodeTraceRequest(Buffer.from(JSON.stringify(request)), "json"), 0n),
          );
        expect(write(spans(1, 3, "api"))).to.equal(0);
        expect(write(spans(1, 4, "api"))).to.equal(1);
        const added = db.prepare("SELECT id FROM spans WHERE span_id = unhex(?)").pluck().get(hexId(103, 8)) as bigint;
        expect(added > (sequence as bigint)).to.equal(true);
        const trace = new SqliteReader(db).trace(hexId(1, 16));
        expect(trace?.spans.map((span) => span.spanId)).to.deep.equal([100, 101, 102, 103].map((id) => hexId(id, 8)));
        expect(trace?.summary.spanCount).to.equal(4);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("moves a version-6 store to logs unique by time and content hash, keeping every log and row id", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    const timed = logsRequest(
      "api",
      Array.from({ length: 5 }, (_, i) => ({ timeNs: T0 + BigInt(i), body: `line ${i}` })),
    );
    // One record with only an observed time, one with no time at all (ordered by when it came).
    const untimed = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "api" } }] },
          scopeLogs: [
            {
              logRecords: [
                { observedTimeUnixNano: (T0 + 50n).toString(), body: { stringValue: "observed only" } },
                { body: { stringValue: "no time" } },
              ],
            },
          ],
        },
      ],
    };
    try {
      store.writeLogs(timed);
      store.writeLogs(untimed, T0 + 90n);
      store.writeLogs(logsRequest("api", [{ timeNs: T0 + 99n, body: "deleted" }]));
      // The newest log was deleted: row ids must still not be handed out again.
      store.db.exec("DELETE FROM logs WHERE id = (SELECT max(id) FROM logs)");
      const sequence = store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'logs'").pluck().get();
      const path = join(dir.path, "v6.sqlite");
      const db = copyAtVersion(store.db, path, 6);
      try {
        // Since version 18 the times are kept relative to ts_ns: read as they were.
        const rows = (times: string) =>
          db.prepare(`SELECT id, hex(hash) AS hash, ts_ns, ${times}, body, trace_id FROM logs ORDER BY id`).all();
        const before = rows("time_ns, observed_ns");
        expect(before).to.have.length(7);
        expect(migrate(db, path)).to.deep.equal(versionsAfter(6));
        const times = ["time_ns", "observed_ns"].map((c) => `${columnBeforeV18("logs", c)} AS ${c}`).join(", ");
        expect(rows(times)).to.deep.equal(before);
        expect(db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'logs'").pluck().get()).to.equal(sequence);
        // The hash's own unique index is gone; time-first ones took its place (one since version 18).
        const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'logs' AND type = 'index'").pluck();
        expect(indexes.all()).to.have.members([
          "logs_by_ts",
          "logs_timeless_by_hash",
          "logs_by_trace",
          "logs_warnings_by_service",
        ]);

        // Resends add nothing, the record with no time too though it comes at another moment;
        // new ids are past the old sequence.
        const writer = new TelemetryWriter(db, 0n);
        const write = (request: unknown, receivedNs: bigint) =>
          writer.transaction(() =>
            writer.writeLogs(decodeLogRequest(Buffer.from(JSON.stringify(request)), "json"), receivedNs),
          );
        expect(write(timed, 0n)).to.equal(0);
        expect(write(untimed, T0 + 500n)).to.equal(0);
        expect(write(logsRequest("api", [{ timeNs: T0 + 2n, body: "line 2, again but not the same" }]), 0n)).to.equal(
          1,
        );
        const added = db.prepare("SELECT max(id) FROM logs").pluck().get() as bigint;
        expect(added > (sequence as bigint)).to.equal(true);
        expect(db.prepare("SELECT count(*) FROM logs").pluck().get()).to.equal(8n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("records a version-8 store's oldest span and log times as what retention may have trimmed, once, at version 10", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      store.writeTraces(
        traceRequest("api", [
          { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 + 500n },
          { traceId: hexId(2, 16), spanId: hexId(2, 8), startNs: T0 + 100n },
        ]),
      );
      store.writeLogs(logsRequest("api", [{ timeNs: T0 + 300n, body: "a" }]));
      const counter = (db: Database.Database, name: string) =>
        db.prepare("SELECT value FROM counters WHERE name = ?").pluck().get(name);
      // A store this version creates trusts its rollup slots from the start: no bound recorded.
      expect(counter(store.db, "spans_trimmed_through_ns")).to.equal(undefined);
      const path = join(dir.path, "v8.sqlite");
      const db = copyAtVersion(store.db, path, 8);
      try {
        expect(migrate(db, path)).to.deep.equal(versionsAfter(8));
        expect(counter(db, "spans_trimmed_through_ns")).to.equal(T0 + 100n);
        expect(counter(db, "logs_trimmed_through_ns")).to.equal(T0 + 300n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("moves a version-10 store's postings to coded row ids, exactly as the writer codes them, telling its progress", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      // Several transactions, values shared and unique, so entries hold one row or many.
      for (let batch = 0; batch < 5; batch++) {
        store.writeTraces(
          traceRequest(
            "api",
            Array.from({ length: 40 }, (_, i) => ({
              traceId: hexId(batch * 100 + Math.floor(i / 4) + 1, 16),
              spanId: hexId(batch * 100 + i + 1, 8),
              startNs: T0 + BigInt(batch * 100 + i),
              attributes: { "http.route": `/r/${i % 3}`, "request.id": `req-${batch}-${i}`, n: i % 2 },
            })),
          ),
        );
        store.writeLogs(
          logsRequest(
            "api",
            Array.from({ length: 10 }, (_, i) => ({
              timeNs: T0 + BigInt(batch * 10 + i),
              body: `line ${i}`,
              attributes: { user: `u${i % 4}` },
            })),
          ),
        );
      }
      const path = join(dir.path, "v10.sqlite");
      const db = copyAtVersion(store.db, path, 10);
      try {
        const entries = (from: Database.Database, table: string) =>
          from.prepare(`SELECT * FROM ${table} ORDER BY bucket, key_id, value, first_row`).all();
        expect(typeof (entries(db, "span_postings")[0] as { rows: unknown }).rows).to.equal("string");
        // A value whose bytes are not UTF-8 (SQLite keeps what it was given) must keep them.
        db.prepare(
          "INSERT INTO span_postings VALUES (0, 1, CAST(X'EDA080' AS TEXT), 900001, 900003, '[900003,900001]')",
        ).run();
        db.prepare(
          "INSERT INTO span_postings VALUES (0, 1, CAST(X'EDA080' AS TEXT), 900010, 900010, '[900010]')",
        ).run();
        const progress: [number, number][] = [];
        expect(
          migrate(db, path, MIGRATIONS, {
            onProgress: (migration, done, total) => {
              if (migration.version === 11) progress.push([done, total]);
            },
          }),
        ).to.deep.equal(versionsAfter(10));
        const odd = db
          .prepare("SELECT first_row, last_row, rows FROM span_postings WHERE hex(value) = 'EDA080' ORDER BY first_row")
          .raw()
          .all();
        expect(odd).to.deep.equal([
          [900001n, 900003n, Buffer.from([2])],
          [900010n, 900010n, Buffer.alloc(0)],
        ]);
        db.exec("DELETE FROM span_postings WHERE hex(value) = 'EDA080'");
        for (const table of ["span_postings", "log_postings"]) {
          expect(entries(db, table), table).to.deep.equal(entries(store.db, table));
        }
        const total = Number(
          store.db
            .prepare("SELECT (SELECT count(*) FROM span_postings) + (SELECT count(*) FROM log_postings)")
            .pluck()
            .get(),
        );
        // The two entries added above are counted too.
        expect(progress.at(-1)).to.deep.equal([total + 2, total + 2]);
        expect(progress.every(([done], i) => i === 0 || done > (progress[i - 1] as [number, number])[0])).to.equal(
          true,
        );
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("refuses a version-10 posting list that is not row ids, and keeps the store at version 10", () => {
    const store = testStore();
    try {
      store.writeTraces(
        traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: 1n, attributes: { k: "v" } }]),
      );
      const path = join(dir.path, "v10-odd.sqlite");
      const db = copyAtVersion(store.db, path, 10);
      try {
        db.prepare(`INSERT INTO span_postings VALUES (0, 1, 'odd', 5, 9, '[5,"x",9]')`).run();
        expect(() => migrate(db, path)).to.throw(/a posting list that is not row ids: \[5,"x",9\]/);
        expect(db.pragma("user_version", { simple: true })).to.equal(10n);
        expect(db.prepare("SELECT count(*) FROM span_postings WHERE typeof(rows) = 'text'").pluck().get()).to.equal(2n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("moves a version-11 store's span and log attributes to key ids, every answer the same, telling its progress", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      const kinds: Record<string, string | number | boolean>[] = [
        { "http.route": "/users/{id}", status: 200, ok: true, ratio: 0.1 + 0.2, huge: "9007199254740993" },
        { 'quote"key': 'say "hi"' },
        // A key with a lone surrogate (OTLP/JSON can send one), which SQLite does not give back the same.
        { ключ: "значение", emoji: "🚀", "2": "integer-like", "http.route": "/orders", "lone\ud800": "x" },
        {},
      ];
      // Lists, maps and a null value, which the builders do not make, on the second record.
      const odd = [
        { key: "list", value: { arrayValue: { values: [{ intValue: "1" }, { stringValue: "two" }] } } },
        { key: "map", value: { kvlistValue: { values: [{ key: "nested", value: { stringValue: "x,y}" } }] } } },
        { key: "gone", value: {} },
      ];
      const traces = traceRequest(
        "api",
        kinds.map((attributes, i) => ({
          traceId: hexId(1, 16),
          spanId: hexId(i + 1, 8),
          startNs: T0 + BigInt(i),
          attributes,
        })),
      );
      const logs = logsRequest(
        "api",
        kinds.map((attributes, i) => ({ timeNs: T0 + BigInt(i), body: `line ${i}`, attributes })),
      );
      const spans = (traces as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] })
        .resourceSpans[0]?.scopeSpans[0]?.spans as { attributes: unknown[] }[];
      spans[1]?.attributes.push(...odd);
      const records = (logs as { resourceLogs: { scopeLogs: { logRecords: { attributes: unknown[] }[] }[] }[] })
        .resourceLogs[0]?.scopeLogs[0]?.logRecords as { attributes: unknown[] }[];
      records[1]?.attributes.push(...odd);
      store.writeTraces(traces);
      store.writeLogs(logs);
      const path = join(dir.path, "v11.sqlite");
      const db = copyAtVersion(store.db, path, 11);
      try {
        expect(db.prepare("SELECT typeof(attributes) FROM spans LIMIT 1").pluck().get()).to.equal("text");
        // A text no writer of this version makes (spaces): kept whole, given back as it was.
        db.prepare(`UPDATE logs SET attributes = '{ "spaced": 1 }' WHERE id = (SELECT max(id) FROM logs)`).run();
        // A key no posting named (its only value is null), so not in the dictionary yet.
        db.prepare("DELETE FROM attr_keys WHERE key = 'gone'").run();
        const page = { fromNs: T0, toNs: T0 + 1000n, limit: 100 };
        const answers = (reader: SqliteReader) => ({
          spans: reader.spans({ attrs: [], attrContains: [], page }),
          byRoute: reader.spans({ attrs: [["http.route", "/orders"]], attrContains: [["status", "20"]], page }),
          byKey: reader.spans({ attrs: [['quote"key', 'say "hi"']], attrContains: [], page }),
          trace: reader.trace(hexId(1, 16)),
          logs: reader.logs({ attrs: [], attrContains: [["ok", "tru"]], page }),
          allLogs: reader.logs({ attrs: [], attrContains: [], page }),
          keys: reader.facets({ type: "traces", field: "attribute_keys" }, { ...page, service: "api" }, 100),
          values: reader.facets(
            { type: "traces", field: "attribute_values", key: "http.route" },
            { ...page, service: "api" },
            100,
          ),
        });
        const before = readWithIdsAsBytes(db, (copy) => answers(new SqliteReader(copy)));
        expect(before.byRoute.items).to.have.length(0);
        expect(before.byKey.items).to.have.length(1);
        const progress: [number, number][] = [];
        expect(
          migrate(db, path, MIGRATIONS, {
            onProgress: (migration, done, total) => {
              if (migration.version === 12) progress.push([done, total]);
            },
          }),
        ).to.deep.equal(versionsAfter(11));
        expect(progress.at(-1)).to.deep.equal([8, 8]);
        expect(db.prepare("SELECT DISTINCT typeof(attributes) FROM spans").pluck().all()).to.deep.equal(["blob"]);
        expect(db.prepare("SELECT count(*) FROM attr_keys WHERE key = 'gone'").pluck().get()).to.equal(1n);
        expect(readAfresh(path, answers)).to.deep.equal(before);
        // What the writer codes from here is read back the same way.
        const writer = new TelemetryWriter(db, 0n);
        writer.transaction(() =>
          writer.writeSpans(
            decodeTraceRequest(
              Buffer.from(
                JSON.stringify(
                  traceRequest("api", [
                    { traceId: hexId(2, 16), spanId: hexId(9, 8), startNs: T0 + 9n, attributes: { fresh: "key" } },
                  ]),
                ),
              ),
              "json",
            ),
            0n,
          ),
        );
        const fresh = new SqliteReader(db).spans({ attrs: [["fresh", "key"]], attrContains: [], page });
        expect(fresh.items.map((span) => span.attributes)).to.deep.equal([{ fresh: "key" }]);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("gives a version-11 span whose trace lost its summary one before spans stop holding their trace's id", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      store.writeTraces(
        traceRequest("api", [
          { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 + 1n, durationNs: 5n },
          { traceId: hexId(2, 16), spanId: hexId(2, 8), startNs: T0 + 2n, durationNs: 7n, error: true },
        ]),
      );
      const path = join(dir.path, "v11-lost.sqlite");
      const db = copyAtVersion(store.db, path, 11);
      try {
        db.prepare("DELETE FROM traces WHERE trace_id = ?").run(hexId(2, 16));
        migrate(db, path);
        const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
        const spans = new SqliteReader(db).spans({ attrs: [], attrContains: [], page }).items;
        expect(spans.map((span) => [span.traceId, span.durationNs])).to.deep.equal([
          [hexId(2, 16), 7],
          [hexId(1, 16), 5],
        ]);
        expect(
          db.prepare("SELECT span_count, error_count FROM traces WHERE trace_id = unhex(?)").get(hexId(2, 16)),
        ).to.deep.equal({ span_count: 1n, error_count: 1n });
        expect(db.prepare("SELECT value FROM counters WHERE name = 'traces'").pluck().get()).to.equal(2n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a version-13 store in place, its rows' values left in them, new rows' repeating values stored once, every answer the same", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    const routes = ["/users/{id}", "/orders", "/cart"];
    const spans = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        traceId: hexId(from + i, 16),
        spanId: hexId(from + i, 8),
        startNs: T0 + BigInt(from + i),
        attributes: { "http.route": routes[(from + i) % 3] as string, "request.id": `r${from + i}` },
      }));
    try {
      // Enough spans and logs for the writer to put the routes in the dictionary.
      const first = spans(1, SAMPLE + 30);
      store.writeTraces(traceRequest("api", first));
      store.writeLogs(
        logsRequest(
          "api",
          first.map((span) => ({ timeNs: span.startNs, body: "line", attributes: span.attributes })),
        ),
      );
      expect(store.db.prepare("SELECT count(*) FROM attr_values").pluck().get()).to.equal(3n);
      const path = join(dir.path, "v13.sqlite");
      const db = copyAtVersion(store.db, path, 13);
      try {
        expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'attr_values'").pluck().get()).to.equal(0n);
        const page = { fromNs: T0, toNs: T0 + 100_000n, limit: 1000 };
        const answers = (reader: SqliteReader) => ({
          spans: reader.spans({ attrs: [], attrContains: [], page }),
          byRoute: reader.spans({ attrs: [], attrContains: [["http.route", "orders"]], page }),
          logs: reader.logs({ attrs: [["http.route", "/cart"]], attrContains: [], page }),
          values: reader.facets(
            { type: "traces", field: "attribute_values", key: "http.route" },
            { ...page, service: "api" },
            10,
          ),
        });
        // This reader reads ids as bytes (version 16): the version-13 rows' answers come from a
        // copy with its ids turned to bytes, and equal those of the store they were copied from.
        const before = readWithIdsAsBytes(db, (copy) => answers(new SqliteReader(copy)));
        expect(answers(new SqliteReader(store.db))).to.deep.equal(before);
        const rows = () => db.prepare("SELECT id, attributes FROM spans ORDER BY id").raw().all();
        const rowsBefore = rows();
        expect(migrate(db, path)).to.deep.equal(versionsAfter(13));
        expect(rows()).to.deep.equal(rowsBefore);
        expect(db.prepare("SELECT count(*) FROM attr_values").pluck().get()).to.equal(0n);
        expect(readAfresh(path, answers)).to.deep.equal(before);
        // The writer codes new rows' routes through the dictionary; old and new rows read alike.
        const writer = new TelemetryWriter(db, 0n);
        const later = spans(1000, SAMPLE + 30);
        writer.transaction(() =>
          writer.writeSpans(decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", later))), "json"), 0n),
        );
        expect(db.prepare("SELECT count(*) FROM attr_values").pluck().get()).to.equal(3n);
        const all = new SqliteReader(db).spans({ attrs: [], attrContains: [], page }).items;
        expect(all.map((span) => span.attributes)).to.deep.equal(
          [...first, ...later].map((span) => span.attributes).reverse(),
        );
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a version-14 store so that no new metric or series takes an id rows still name, dropping rows of metrics gone", () => {
    const store = testStore();
    const S = 1_000_000_000n;
    const T0 = 1_700_000_100n * S;
    const write = (points: MetricPointRecord[], writer = store.writer) => {
      writer.transaction(() => writer.writeMetrics(metricBatch("api", points), 0n));
      writer.writeHeld();
    };
    const point = (seconds: number, route: string) =>
      metricPoint({
        name: "m",
        timeNs: T0 + BigInt(seconds) * S,
        value: seconds,
        attributes: JSON.stringify({ route }),
      });
    try {
      write([point(0, "/a"), point(10, "/b")]);
      write([point(7200, "/a")]);
      const leftover = store.db
        .prepare("SELECT id FROM metric_series WHERE attributes = ?")
        .pluck()
        .get('{"route":"/b"}') as bigint;
      // "/b", the newest series, goes.
      new Retention(store.db, { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, batchRows: 1000 }).trimByAge(
        T0 + 15n * S + 3_600_000_000_000n,
      );
      expect((store.db.prepare("SELECT max(id) FROM metric_series").pluck().get() as bigint) < leftover).to.equal(true);
      const path = join(dir.path, "v14.sqlite");
      const db = copyAtVersion(store.db, path, 14);
      try {
        // What a version-14 retention left: the row of "/b"'s last minute, which stayed until
        // the minute passed the cutoff, and a row of a metric it emptied.
        const row = db.prepare(
          "INSERT INTO metric_rollups (metric_id, width_s, slot, series_id, points, first_ns, last_ns, resets) VALUES (?, 60, ?, ?, 1, 1, 1, 0)",
        );
        row.run(1, (T0 + 10n * S) / (60n * S), leftover);
        row.run(99, 1, 1);
        expect(migrate(db, path)).to.deep.equal(versionsAfter(14));
        expect(db.prepare("SELECT count(*) FROM metric_rollups WHERE metric_id = 99").pluck().get()).to.equal(0n);
        const writer = new TelemetryWriter(db, 0n);
        write([point(7210, "/c")], writer);
        const fresh = db.prepare("SELECT id FROM metric_series WHERE attributes = ?").pluck().get('{"route":"/c"}');
        expect(fresh).to.equal(leftover + 1n);
        write([{ ...point(7220, "/x"), name: "other" }], writer);
        expect(db.prepare("SELECT id FROM metrics WHERE name = 'other'").pluck().get()).to.equal(2n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a store of every earlier version, with data in every table the writer fills, to the same answers", () => {
    const store = testStore();
    const S = 1_000_000_000n;
    const T0 = 1_700_000_100n * S;
    const routes = ["/users/{id}", "/orders", "/cart"];
    try {
      // Enough spans for the routes to reach the value dictionary, a parent that never arrives,
      // errors; logs with and without trace ids; a cumulative counter over two packed slots.
      const spans = Array.from({ length: SAMPLE + 30 }, (_, i) => ({
        traceId: hexId(1 + Math.floor(i / 4), 16),
        spanId: hexId(i + 1, 8),
        ...(i % 4 === 0 ? {} : { parentSpanId: hexId(i % 4 === 3 ? 99_999 : i - (i % 4) + 1, 8) }),
        startNs: T0 + BigInt(i) * S,
        // One span ends before it starts, as a client may send it.
        durationNs: i === 5 ? -7n : BigInt(1 + (i % 7)) * 1_000_000n,
        name: `op ${i % 5}`,
        error: i % 9 === 0,
        attributes: { "http.route": routes[i % 3] as string, "request.id": `r${i}` },
        // Errors with an exception event; one span with every field a span rarely has.
        more: {
          ...(i % 9 === 0
            ? {
                events: [
                  {
                    name: "exception",
                    timeUnixNano: String(T0 + BigInt(i) * S + 1n),
                    attributes: attributeList({ "exception.type": `E${i % 2}` }),
                  },
                ],
              }
            : {}),
          ...(i === 6
            ? {
                traceState: "vendor=a,other=b",
                events: [{ name: "retry", timeUnixNano: String(T0 + 6n * S), attributes: attributeList({ n: 2 }) }],
                links: [
                  { traceId: hexId(900, 16), spanId: hexId(901, 8), attributes: attributeList({ why: "batch" }) },
                ],
                droppedAttributesCount: 2,
                droppedEventsCount: 1,
                droppedLinksCount: 3,
              }
            : {}),
        },
      }));
      store.writeTraces(traceRequest("api", spans));
      const logRequests = [
        logsRequest(
          "api",
          spans.map((span, i) => ({
            timeNs: span.startNs,
            body: i % 5 === 0 ? `timeout ${i}` : `line ${i}`,
            severityNumber: i % 5 === 0 ? 17 : 9,
            attributes: span.attributes,
            ...(i % 2 === 0 ? { traceId: span.traceId, spanId: span.spanId } : {}),
          })),
        ),
        // Log records with each kind of time and severity text the store keeps in its own way.
        logsRequest("api", [
          { timeNs: T0 + 1n, observedNs: T0 + 2n * S, body: "timeout observed later", severityText: "INFO" },
          { timeNs: T0 + 2n, observedNs: T0 - 1n, body: "timeout observed before", severityText: "WARNING" },
          { timeNs: 0n, observedNs: T0 + 3n, body: "timeout observed only", severityNumber: 14, severityText: "WARN2" },
          { timeNs: 0n, body: "timeout with no time", severityNumber: 0, severityText: "custom" },
        ]),
      ];
      for (const request of logRequests) store.writeLogs(request, T0 + 4n);
      // A record with no time, received at 0 (the test store's clock): its time is its ts_ns.
      const receivedAtZero = logsRequest("api", [{ timeNs: 0n, body: "timeout received at 0" }]);
      store.writeLogs(receivedAtZero, 0n);
      const points = Array.from({ length: 240 }, (_, i) =>
        routes.map((route) =>
          metricPoint({
            timeNs: T0 + BigInt(i * 10) * S,
            startNs: T0 - S,
            value: i * 2,
            attributes: JSON.stringify({ route }),
          }),
        ),
      ).flat();
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
      expect(store.db.prepare("SELECT count(*) FROM metric_slot_packs").pluck().get()).to.not.equal(0n);
      const page = { fromNs: T0 - 60n * S, toNs: T0 + 3600n * S, limit: 1000 };
      const window = { fromNs: page.fromNs, toNs: page.toNs };
      const auditOf = (reader: SqliteReader, version: number) => {
        const facts = reader.auditFacts({
          untilNs: page.toNs,
          currentFromNs: T0 + 120n * S,
          baselineFromNs: page.fromNs,
          graceNs: 5n * S,
        });
        if (version >= 8) return facts;
        const activity = facts.activity.map(({ currentSeries: _current, baselineSeries: _baseline, ...rest }) => rest);
        return { ...facts, activity };
      };
      const answers = (reader: SqliteReader, version: number) => ({
        traces: reader.traces({ attrs: [], page }),
        errors: reader.traces({ attrs: [], status: "error", page }),
        trace: reader.trace(hexId(2, 16)),
        spans: reader.spans({ attrs: [["http.route", "/orders"]], attrContains: [["request.id", "r1"]], page }),
        span: reader.span(hexId(7, 8)),
        stats: reader.traceStats({ attrs: [], ...window }, { attr: "http.route" }, "count"),
        logs: reader.logs({ attrs: [], attrContains: [], contains: "timeout", page }),
        traceLogs: reader.logs({ attrs: [], attrContains: [], traceId: hexId(3, 16), page }),
        facets: reader.facets(
          { type: "traces", field: "attribute_values", key: "http.route" },
          { ...window, service: "api" },
          10,
        ),
        logsByRoute: reader.logs({ attrs: [["http.route", "/orders"]], attrContains: [], page }),
        // Orphans, the span and log rollups; the metric activity only where the store has metrics.
        audit: auditOf(reader, version),
        ...(version >= 8
          ? {
              metrics: reader.metrics({ page }),
              fromPoints: reader.metricBuckets({
                metric: reader.metricIdentities("requests")[0] as MetricIdentity,
                ...window,
                attrs: [["route", "/orders"]],
                stepMs: 60_000,
                source: { kind: "points" },
                groupBy: [],
                agg: "rate",
              }),
              rates: reader.metricBuckets({
                metric: reader.metricIdentities("requests")[0] as MetricIdentity,
                ...window,
                attrs: [],
                stepMs: 900_000,
                source: { kind: "rollups", widthS: 900 },
                groupBy: [{ attr: "route" }],
                agg: "rate",
              }),
            }
          : {}),
      });
      // Every answer has something in it to compare.
      const full = answers(new SqliteReader(store.db), SCHEMA_VERSION);
      for (const list of [full.traces, full.errors, full.spans, full.logs, full.traceLogs]) {
        expect(list.items).to.not.be.empty;
      }
      expect(full.trace?.spans).to.have.length(4);
      // Ids of every kind the upgrades carry: parents, roots, logs' spans, orphans.
      expect(full.trace?.spans.filter((span) => span.parentSpanId !== null)).to.not.be.empty;
      expect(full.trace?.summary.rootSpanId).to.equal(hexId(5, 8));
      expect(full.traceLogs.items.every((log) => log.spanId !== null)).to.equal(true);
      expect(full.audit.orphanSpans).to.not.be.empty;
      expect(full.span).to.have.length(1);
      expect(full.span[0]).to.deep.include({ traceState: "vendor=a,other=b", droppedLinksCount: 3 });
      expect(full.span[0]?.events.map((event) => event.name)).to.deep.equal(["retry"]);
      expect(full.span[0]?.links).to.have.length(1);
      const errorGroups = [...full.audit.errorSpans.current, ...full.audit.errorSpans.baseline];
      expect(errorGroups.some((group) => group.exceptionType === "E1")).to.equal(true);
      expect(full.stats).to.have.length(3);
      expect(full.facets).to.have.length(3);
      expect(full.metrics?.items).to.have.length(1);
      expect(full.logsByRoute.items).to.not.be.empty;
      expect(full.fromPoints?.[0]?.values.some((value) => value !== null)).to.equal(true);
      // Three buckets with points a route; the newest bucket reads the rate now, 0 long after them.
      expect(full.rates?.map((group) => group.values.filter((value) => value !== null).length)).to.deep.equal([
        4, 4, 4,
      ]);
      expect(full.rates?.map((group) => group.values.at(-1))).to.deep.equal([0, 0, 0]);
      for (let version = 1; version < SCHEMA_VERSION; version++) {
        const path = join(dir.path, `every-v${version}.sqlite`);
        const db = copyAtVersion(store.db, path, version);
        try {
          expect(migrate(db, path), `from ${version}`).to.deep.equal(versionsAfter(version));
        } finally {
          db.close();
        }
        const expected = answers(new SqliteReader(store.db), version);
        expect(
          readAfresh(path, (reader) => answers(reader, version)),
          `from ${version}`,
        ).to.deep.equal(expected);
        // Every log record and span is still stored once: sent again, later, none is new.
        const upgraded = new Database(path);
        try {
          upgraded.defaultSafeIntegers(true);
          const writer = new TelemetryWriter(upgraded, 0n);
          for (const request of [...logRequests, receivedAtZero]) {
            const batch = decodeLogRequest(Buffer.from(JSON.stringify(request)), "json");
            expect(
              writer.transaction(() => writer.writeLogs(batch, T0 + 9n)),
              `from ${version}`,
            ).to.equal(0);
          }
          // And every span: sent again, none is new.
          const resent = decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", spans))), "json");
          expect(
            writer.transaction(() => writer.writeSpans(resent, T0 + 9n)),
            `spans from ${version}`,
          ).to.equal(0);
        } finally {
          upgraded.close();
        }
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a version-15 store's ids to their bytes and its log records to version 18 across copy ranges, keeping every row id, sequence and answer, telling its progress", () => {
    const store = testStore();
    const T0 = 1_700_000_000_000_000_000n;
    try {
      // Three rounds of spans and logs; the later rounds' row ids start at the last id of a copy
      // range (65,536 ids from the first) and go on into the next. Each round's trace has a
      // root, a child and a span whose parent never arrives; half the logs name a span.
      for (let round = 0; round < 3; round++) {
        if (round > 0) {
          store.db
            .prepare("UPDATE sqlite_sequence SET seq = ? WHERE name IN ('spans', 'logs')")
            .run(round * 65_536 - 1);
        }
        const traceId = hexId(round + 1, 16);
        const span = (n: number, parent: number | null) => ({
          traceId,
          spanId: hexId(round * 10 + n, 8),
          ...(parent === null ? {} : { parentSpanId: hexId(round * 10 + parent, 8) }),
          startNs: T0 + BigInt(round * 10 + n),
          error: n === 2,
        });
        store.writeTraces(traceRequest("api", [span(1, null), span(2, 1), span(3, 9)]));
        store.writeLogs(
          logsRequest(
            "api",
            [1, 2, 3, 4].map((n) => ({
              timeNs: T0 + BigInt(round * 10 + n),
              body: `line ${round} ${n}`,
              severityNumber: 17,
              traceId,
              ...(n % 2 === 0 ? { spanId: hexId(round * 10 + n, 8) } : {}),
            })),
          ),
        );
      }
      const rowIds = (db: Database.Database, table: string) =>
        db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all() as bigint[];
      expect(rowIds(store.db, "spans").slice(3, 5)).to.deep.equal([65_536n, 65_537n]);
      const page = { fromNs: T0, toNs: T0 + 100n, limit: 100 };
      const answers = (reader: SqliteReader) => ({
        traces: reader.traces({ attrs: [], page }),
        traceDetails: [1, 2, 3].map((n) => reader.trace(hexId(n, 16))),
        spans: reader.spans({ attrs: [], attrContains: [], page }),
        span: reader.span(hexId(22, 8)),
        logs: reader.logs({ attrs: [], attrContains: [], traceId: hexId(3, 16), page }),
        spanLogs: reader.logs({ attrs: [], attrContains: [], spanId: hexId(14, 8), page }),
        // Ending past every span's end (1 ms after its start): orphans are read once their trace settled.
        audit: reader.auditFacts({
          untilNs: T0 + 2_000_000n,
          currentFromNs: T0,
          baselineFromNs: T0 - 100n,
          graceNs: 0n,
        }),
      });
      const expected = answers(new SqliteReader(store.db));
      expect(expected.audit.orphanSpans).to.have.length(3);
      expect(expected.spanLogs.items).to.have.length(1);
      expect(expected.traceDetails.map((trace) => trace?.summary.rootSpanId)).to.deep.equal(
        [1, 11, 21].map((n) => hexId(n, 8)),
      );
      const path = join(dir.path, "v15.sqlite");
      const db = copyAtVersion(store.db, path, 15);
      const progress: [number, number][] = [];
      const logProgress: [number, number][] = [];
      try {
        expect(db.prepare("SELECT DISTINCT typeof(span_id) FROM spans").pluck().all()).to.deep.equal(["text"]);
        expect(
          migrate(db, path, MIGRATIONS, {
            onProgress: (migration, done, total) => {
              if (migration.version === 16) progress.push([done, total]);
              if (migration.version === 18) logProgress.push([done, total]);
            },
          }),
        ).to.deep.equal(MIGRATIONS.filter((migration) => migration.version > 15).map((migration) => migration.version));
        for (const table of ["spans", "logs", "traces"]) {
          expect(rowIds(db, table === "traces" ? "(SELECT trace_key AS id FROM traces)" : table), table).to.deep.equal(
            rowIds(store.db, table === "traces" ? "(SELECT trace_key AS id FROM traces)" : table),
          );
        }
        const sequences = (from: Database.Database) =>
          from.prepare("SELECT name, seq FROM sqlite_sequence ORDER BY name").raw().all();
        expect(sequences(db)).to.deep.equal(sequences(store.db));
        expect(db.prepare("SELECT DISTINCT typeof(span_id) FROM spans").pluck().all()).to.deep.equal(["blob"]);
      } finally {
        db.close();
      }
      // Traces, spans and logs, counted as they are copied; never backwards, ending at all of them.
      const rows = 3 + 9 + 12;
      expect(progress.at(-1)).to.deep.equal([rows, rows]);
      expect(progress.every(([done, total], i) => total === rows && done >= (progress[i - 1]?.[0] ?? 0))).to.equal(
        true,
      );
      expect(progress.length).to.be.greaterThan(3);
      // Version 18 copies the logs again, in ranges of 65,536 ids from the first (1 to 65,536).
      expect(logProgress).to.deep.equal([
        [5, 12],
        [9, 12],
        [12, 12],
        [12, 12],
      ]);
      expect(readAfresh(path, answers)).to.deep.equal(expected);
    } finally {
      store.close();
    }
  });

  it("upgrades a version-18 store's span names into a table of at most 50,000, the most frequent first, the rest kept in their rows", () => {
    const path = join(dir.path, "v18-names.sqlite");
    const db = new Database(path);
    db.defaultSafeIntegers(true);
    try {
      migrate(db, path, MIGRATIONS.slice(0, 18));
      const long = "x".repeat(300);
      // 50,001 short names ("n0" on three spans, the rest on one each), a long one, and a root
      // name no span has any more.
      db.exec(`INSERT INTO traces (trace_key, trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name)
          VALUES (1, zeroblob(16), 0, 10, 3, 0, NULL, 1, 'root only');
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 50003)
        INSERT INTO spans (trace_key, span_id, service_id, resource_id, scope_id, name, kind, start_ns, end_ns,
            status_code, flags, attributes, dropped_attributes_count, dropped_events_count, dropped_links_count)
          SELECT 1, CAST(printf('%08d', i) AS BLOB), 1, 1, 1,
            CASE WHEN i <= 2 THEN 'n0' WHEN i = 50003 THEN '${long}' ELSE 'n' || (i - 2) END,
            1, i, i + 5 - (i % 11), 0, 0, x'', 0, 0, 0 FROM n;`);
      const before = db.prepare("SELECT id, name, end_ns FROM spans ORDER BY id").raw().all();
      migrate(db, path);
      const names = db.prepare("SELECT name FROM span_names").pluck();
      expect(names.all()).to.have.length(50_000);
      expect(names.all()).to.include("n0");
      // Of names as frequent, the last by text is turned away.
      expect(names.all()).to.not.include("n9999");
      expect(names.all()).to.not.include(long);
      // The table is full: it turned names away, and takes no new one.
      expect(db.prepare("SELECT value FROM meta WHERE key = 'span_names_closed'").pluck().get()).to.equal("1");
      const kept = db.prepare("SELECT count(*) FROM spans WHERE name IS NOT NULL AND name_id IS NULL").pluck().get();
      expect(kept).to.equal(2n);
      expect(db.prepare("SELECT count(*) FROM spans WHERE (name IS NULL) = (name_id IS NULL)").pluck().get()).to.equal(
        0n,
      );
      const after = db
        .prepare(
          `SELECT s.id, coalesce(n.name, s.name), s.start_ns + s.duration_ns FROM spans s
           LEFT JOIN span_names n ON n.id = s.name_id ORDER BY s.id`,
        )
        .raw()
        .all();
      expect(after).to.deep.equal(before);
      expect(db.prepare("SELECT root_name_id, root_name FROM traces").raw().get()).to.deep.equal([null, "root only"]);
    } finally {
      db.close();
    }
  });

  it("upgrades a version-20 store's span rollups to varints and bytes, each slot's rows merged into one, the same answers, telling its progress", () => {
    const store = testStore();
    const S = 1_000_000_000n;
    const T0 = 1_700_000_100n * S;
    try {
      // Three commits of the same operations and minutes: three rows a slot (fewer than are
      // merged as they are written), and more than one page of the step's reads.
      for (let commit = 0; commit < 3; commit++) {
        store.writeTraces(
          traceRequest(
            "api",
            Array.from({ length: 40 }, (_, i) => ({
              traceId: hexId(1 + commit * 100 + i, 16),
              spanId: hexId(1 + commit * 100 + i, 8),
              startNs: T0 + BigInt(i % 4) * 60n * S + BigInt(commit),
              durationNs: BigInt(1 + ((i * 7 + commit) % 13)) * 1_000_000n,
              name: `op ${i % 3}`,
            })),
          ),
        );
      }
      const rowsPerSlot = (db: Database.Database) =>
        db
          .prepare("SELECT count(*) FROM span_rollups GROUP BY width, slot, service_id, name")
          .pluck()
          .safeIntegers(false)
          .all();
      expect(rowsPerSlot(store.db).every((rows) => rows === 3)).to.equal(true);
      const window = (db: Database.Database) =>
        new RollupWindowReader(db, null).operations(T0 - 3600n * S, T0 + 7200n * S, 100).operations;
      const expected = window(store.db);
      expect(expected.map((operation) => operation.rollup.slowest.length)).to.deep.equal([5, 5, 5]);
      const path = join(dir.path, "v20-rollups.sqlite");
      const db = copyAtVersion(store.db, path, 20);
      try {
        expect(db.prepare("SELECT DISTINCT typeof(slowest) FROM span_rollups").pluck().all()).to.deep.equal(["text"]);
        // More slots than the step reads at once, three rows each in the old form, of another
        // service: one bucket (7) of count i + 1, and the slowest spans [i + row, span i, trace i].
        db.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 3399), r(k) AS (VALUES (0), (1), (2))
          INSERT INTO span_rollups (width, slot, service_id, name, spans, newest_ns, max_ns, histogram, slowest)
          SELECT 60000000000, i * 60000000000, 77, 'bulk', i + 1, i * 60000000000 + k, i + k,
            unhex(printf('07000000%02x%02x0000', (i + 1) % 256, (i + 1) / 256)),
            json_array(json_array(i + k, printf('%016x', i), printf('%032x', i)))
          FROM n, r`);
        const rows = Number(db.prepare("SELECT count(*) FROM span_rollups").pluck().get());
        expect(rows).to.be.above(10_000);
        const reports: [number, number][] = [];
        migrate(db, path, MIGRATIONS, {
          onProgress: (migration, done, total) => {
            if (migration.version === 21) reports.push([done, total]);
          },
        });
        expect(reports.at(-1)).to.deep.equal([rows, rows]);
        expect(rowsPerSlot(db).every((count) => count === 1)).to.equal(true);
        expect(db.prepare("SELECT DISTINCT typeof(slowest) FROM span_rollups").pluck().all()).to.deep.equal(["blob"]);
        expect(window(db)).to.deep.equal(expected);
        const bulk = db
          .prepare(
            "SELECT slot / 60000000000, spans, newest_ns, max_ns, histogram, slowest FROM span_rollups WHERE service_id = 77",
          )
          .raw()
          .safeIntegers(false)
          .all() as [number, number, number, number, Uint8Array, Uint8Array][];
        expect(bulk).to.have.length(3400);
        for (const [i, spans, newestNs, maxNs, histogram, slowest] of bulk) {
          const merged = emptyOperationRollup();
          mergeStored(merged, { spans, newest_ns: BigInt(newestNs), max_ns: maxNs, histogram, slowest });
          const slow = (k: number): SlowSpan => [
            i + k,
            i.toString(16).padStart(16, "0"),
            i.toString(16).padStart(32, "0"),
          ];
          expect({ ...merged, buckets: [...merged.buckets] }, `slot ${i}`).to.deep.equal({
            spans: 3 * (i + 1),
            newestNs: BigInt(i * 60_000_000_000 + 2),
            buckets: [[7, 3 * (i + 1)]],
            slowest: [slow(2), slow(1), slow(0)],
          });
        }
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a version-22 store's series newest times into a table of their own, and the writer goes on moving them", () => {
    const store = testStore();
    const S = 1_000_000_000n;
    const T0 = 1_700_000_100n * S;
    const point = (seconds: number, route: string) =>
      metricPoint({ timeNs: T0 + BigInt(seconds) * S, value: seconds, attributes: JSON.stringify({ route }) });
    try {
      for (const points of [
        [point(0, "/a"), point(10, "/a"), point(0, "/b")],
        [point(30, "/a"), point(5, "/c")],
      ]) {
        store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), 0n));
      }
      store.writer.writeHeld();
      const newest = (db: Database.Database, from: string) =>
        db
          .prepare(`SELECT s.attributes, l.last_ns FROM metric_series s JOIN ${from} ORDER BY s.id`)
          .safeIntegers(true)
          .all();
      const expected = [
        { attributes: '{"route":"/a"}', last_ns: T0 + 30n * S },
        { attributes: '{"route":"/b"}', last_ns: T0 },
        { attributes: '{"route":"/c"}', last_ns: T0 + 5n * S },
      ];
      expect(newest(store.db, "metric_series_last l ON l.series_id = s.id")).to.deep.equal(expected);
      const path = join(dir.path, "v22-series.sqlite");
      const db = copyAtVersion(store.db, path, 22);
      try {
        expect(newest(db, "metric_series l ON l.id = s.id")).to.deep.equal(expected);
        migrate(db, path, MIGRATIONS);
        expect(db.prepare("SELECT name FROM pragma_table_info('metric_series')").pluck().all()).to.not.include(
          "last_ns",
        );
        expect(db.prepare("SELECT count(*) FROM metric_series_last").pluck().get()).to.equal(3n);
        expect(newest(db, "metric_series_last l ON l.series_id = s.id")).to.deep.equal(expected);
        const writer = new TelemetryWriter(db, 0n);
        writer.transaction(() => writer.writeMetrics(metricBatch("api", [point(40, "/b")]), T0 + 40n * S));
        writer.writeHeld();
        expect(newest(db, "metric_series_last l ON l.series_id = s.id")).to.deep.equal([
          expected[0],
          { attributes: '{"route":"/b"}', last_ns: T0 + 40n * S },
          expected[2],
        ]);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("upgrades a version-24 store's resource and scope hashes to their attributes in key order, so either order finds them", () => {
    const store = testStore();
    const S = 1_000_000_000n;
    const T0 = 1_700_000_100n * S;
    const attrs = (pairs: [string, string][]) => pairs.map(([key, value]) => ({ key, value: { stringValue: value } }));
    const request = (seconds: number, flip: boolean) =>
      decodeMetricRequest(
        Buffer.from(
          JSON.stringify({
            resourceMetrics: [
              {
                resource: {
                  attributes: attrs(
                    flip
                      ? [
                          ["host.name", "h"],
                          ["service.name", "api"],
                        ]
                      : [
                          ["service.name", "api"],
                          ["host.name", "h"],
                        ],
                  ),
                },
                scopeMetrics: [
                  {
                    scope: {
                      name: "lib",
                      attributes: attrs(
                        flip
                          ? [
                              ["a", "1"],
                              ["b", "2"],
                            ]
                          : [
                              ["b", "2"],
                              ["a", "1"],
                            ],
                      ),
                    },
                    metrics: [
                      {
                        name: "g",
                        gauge: { dataPoints: [{ timeUnixNano: `${T0 + BigInt(seconds) * S}`, asDouble: 5 }] },
                      },
                    ],
                  },
                ],
              },
            ],
          }),
        ),
        "json",
      );
    const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
    try {
      store.writer.transaction(() => store.writer.writeMetrics(request(0, false), 0n));
      store.writer.writeHeld();
      // As version 24 hashed them: the attributes' JSON in the order sent.
      const resource = store.db.prepare("SELECT id, attributes FROM resources").get() as {
        id: bigint;
        attributes: string;
      };
      const scope = store.db.prepare("SELECT id, attributes FROM scopes").get() as { id: bigint; attributes: string };
      expect(resource.attributes).to.equal('{"service.name":"api","host.name":"h"}');
      store.db.prepare("UPDATE resources SET hash = ?").run(sha1(`${resource.attributes}\u00000\u0000`));
      store.db.prepare("UPDATE scopes SET hash = ?").run(sha1(`lib\u0000\u0000${scope.attributes}\u00000\u0000`));
      const path = join(dir.path, "v24-hashes.sqlite");
      const db = copyAtVersion(store.db, path, 24);
      try {
        expect(migrate(db, path)).to.deep.equal(versionsAfter(24));
        const batch = request(10, true);
        expect(db.prepare("SELECT hash FROM resources").pluck().all()).to.deep.equal([batch.resources[0]?.hash]);
        expect(db.prepare("SELECT hash FROM scopes").pluck().all()).to.deep.equal([batch.scopes[0]?.hash]);
        // The same resource and scope in the other order: the series the store has.
        const writer = new TelemetryWriter(db, 0n);
        expect(writer.transaction(() => writer.writeMetrics(batch, 0n))).to.equal(1);
        writer.writeHeld();
        expect(db.prepare("SELECT count(*) FROM resources").pluck().get()).to.equal(1n);
        expect(db.prepare("SELECT count(*) FROM metric_series").pluck().get()).to.equal(1n);
        expect(db.prepare("SELECT count(*) FROM metric_points").pluck().get()).to.equal(2n);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("rolls back a failing migration step and keeps the old version", () => {
    const path = join(dir.path, "fail.sqlite");
    const v1: Migration = { version: 1, description: "t", up: (db) => db.exec("CREATE TABLE t (x INTEGER)") };
    const broken: Migration = {
      version: 2,
      description: "broken",
      up: (db) => {
        db.exec("CREATE TABLE u (x)");
        throw new Error("boom");
      },
    };
    const db = new Database(path);
    migrate(db, path, [v1]);
    expect(() => migrate(db, path, [v1, broken])).to.throw("boom");
    expect(db.pragma("user_version", { simple: true })).to.equal(1);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'u'").get()).to.deep.equal({ n: 0 });
    db.close();
  });
});
