import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { openWriteConnection } from "../../../daemon/store/connection.js";
import {
  MIGRATIONS,
  type Migration,
  migrate,
  PAGE_SIZE,
  SCHEMA_VERSION,
  StoreVersionError,
} from "../../../daemon/store/schema.js";
import { tempDir } from "../../helpers/temp-dir.js";

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
    expect(migrate(db, path, [v1, v2], (from, to) => upgrades.push([from, to]))).to.deep.equal([2]);
    // Announced before it runs, and only for a file that had data (version 0 is a new file).
    expect(upgrades).to.deep.equal([[1, 2]]);
    expect(db.prepare("SELECT x, y FROM t").get()).to.deep.equal({ x: 7, y: "n" });
    expect(db.pragma("user_version", { simple: true })).to.equal(2);
    db.close();
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
    expect(migrate(db, path)).to.deep.equal([4]);
    db.exec(row);
    expect(db.prepare("SELECT count(*) FROM span_rollups").pluck().get()).to.equal(2);
    db.close();
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
