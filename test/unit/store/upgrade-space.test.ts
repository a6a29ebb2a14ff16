import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { MIGRATIONS, migrate, StoreUpgradeSpaceError } from "../../../daemon/store/schema.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { copyAtVersion, testStore } from "../../helpers/store.js";
import { tempDir } from "../../helpers/temp-dir.js";

const T0 = 1_700_000_000_000_000_000n;

/** A store at `version` holding spans and logs, copied from one written by today's writer. */
function storeAt(version: number, path: string): Database.Database {
  const source = testStore();
  try {
    for (let trace = 1; trace <= 20; trace++) {
      source.writeTraces(
        traceRequest(
          "api",
          Array.from({ length: 8 }, (_, i) => ({
            traceId: hexId(trace, 16),
            spanId: hexId(trace * 100 + i, 8),
            startNs: T0 + BigInt(trace * 1000 + i),
            attributes: { "http.route": `/r/${i}` },
          })),
        ),
      );
    }
    source.writeLogs(logsRequest("api", [{ body: "hello", timeNs: T0 }]));
    return copyAtVersion(source.db, path, version);
  } finally {
    source.close();
  }
}

/** Pages of the tables named and their indexes, read independently of schema.ts. */
function pagesOf(db: Database.Database, tables: string[]): number {
  let bytes = 0;
  for (const table of tables) {
    const names = db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = ?").pluck().all(table) as string[];
    for (const name of names) {
      bytes += Number(db.prepare("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?").pluck().get(name));
    }
  }
  return bytes;
}

/** What a refused upgrade must leave as it was. */
function state(db: Database.Database) {
  return {
    version: db.pragma("user_version", { simple: true }),
    schema: db.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all(),
    spans: db.prepare("SELECT * FROM spans ORDER BY id").all(),
    logs: db.prepare("SELECT * FROM logs ORDER BY id").all(),
  };
}

describe("store upgrade: room on the disk", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("refuses an upgrade whose table copies the disk has no room for, and changes nothing", () => {
    const path = join(dir.path, "v4.sqlite");
    const db = storeAt(4, path);
    try {
      const before = state(db);
      // Version 5 copies spans, traces and trace services; version 7 logs; version 11 the
      // postings; version 12 spans and logs; version 16 spans, traces, logs and orphans;
      // version 18 logs. Each
      // step commits alone, so the largest must fit.
      const copies = [
        ["spans", "traces", "trace_services"],
        ["logs"],
        ["span_postings", "log_postings"],
        ["spans", "logs"],
        ["spans", "traces", "logs", "orphan_spans"],
        ["logs"],
      ];
      const sizes = copies.map((tables) => pagesOf(db, tables));
      const copied = Math.max(...sizes);
      const largest = copies[sizes.indexOf(copied)] as string[];
      let asked = "";
      const refuse = () =>
        migrate(db, path, MIGRATIONS, {
          freeBytes: (where) => {
            asked = where;
            return 2 * copied - 1;
          },
        });
      expect(refuse).to.throw(
        StoreUpgradeSpaceError,
        new RegExp(`from schema version 4 to \\d+ copies the ${largest.join(", ")} tables`),
      );
      expect(refuse).to.throw(
        /Nothing was changed: free some space, or move the store to a larger disk and start obsd with --db there/,
      );
      expect(asked).to.equal(dir.path);
      expect(state(db)).to.deep.equal(before);
      // Twice the copied pages free is room enough.
      const steps: number[] = [];
      migrate(db, path, MIGRATIONS, {
        freeBytes: () => 2 * copied,
        onStep: (migration) => steps.push(migration.version),
      });
      expect(steps).to.deep.equal(MIGRATIONS.filter((m) => m.version > 4).map((m) => m.version));
      expect(db.prepare("SELECT count(*) FROM spans").pluck().get()).to.equal(160n);
    } finally {
      db.close();
    }
  });

  it("needs no room when no pending step copies a table, and tells no steps of a new store", () => {
    const path = join(dir.path, "v8.sqlite");
    const db = storeAt(8, path);
    try {
      const steps: number[] = [];
      // Versions 9 and 10 add tables and rows; neither copies one.
      const upTo10 = MIGRATIONS.filter((m) => m.version <= 10);
      migrate(db, path, upTo10, { freeBytes: () => 0, onStep: (migration) => steps.push(migration.version) });
      expect(steps).to.deep.equal([9, 10]);
    } finally {
      db.close();
    }
    // A new file is created, not upgraded: no space check, no step lines.
    const freshPath = join(dir.path, "new.sqlite");
    const fresh = new Database(freshPath);
    try {
      const freshSteps: number[] = [];
      const applied = migrate(fresh, freshPath, MIGRATIONS, {
        freeBytes: () => 0,
        onStep: (migration) => freshSteps.push(migration.version),
      });
      expect(applied).to.have.length(MIGRATIONS.length);
      expect(freshSteps).to.deep.equal([]);
    } finally {
      fresh.close();
    }
  });
});
