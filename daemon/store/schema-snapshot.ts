import Database from "better-sqlite3";
import { migrate, SCHEMA_VERSION } from "./schema.js";

/** Where the snapshot lives in the repository, and the command that rewrites it. */
export const SCHEMA_SNAPSHOT_PATH = ["daemon", "store", "schema.sql"] as const;
export const SCHEMA_SNAPSHOT_COMMAND = "npm run schema:snapshot";

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string;
}

const TYPE_ORDER = ["table", "index", "trigger", "view"];

/** Code-point order, the same on every machine (localeCompare depends on the locale). */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One statement's text as SQLite keeps it, without trailing blanks on its lines. */
function normalised(sql: string): string {
  return sql
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

/**
 * The schema of `db` as readable SQL: its user_version, then every table in name order, each
 * followed by its indexes and triggers in name order. SQLite's own objects (sqlite_sequence,
 * the automatic indexes of UNIQUE and PRIMARY KEY constraints) are left out: the statements
 * that made them are already there.
 */
export function schemaText(db: Database.Database): string {
  const objects = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
    .all() as SchemaObject[];
  objects.sort(
    (a, b) =>
      byText(a.tbl_name, b.tbl_name) ||
      TYPE_ORDER.indexOf(a.type) - TYPE_ORDER.indexOf(b.type) ||
      byText(a.name, b.name),
  );
  const version = Number(db.pragma("user_version", { simple: true }));
  const statements = objects.map((object) => `${normalised(object.sql)};`);
  return [`PRAGMA user_version = ${version};`, ...statements].join("\n\n");
}

/** The checked-in snapshot's full text: a header, then the schema of a new store. */
export function schemaSnapshot(): string {
  const db = new Database(":memory:");
  try {
    migrate(db, ":memory:");
    return `-- The schema of a new obs store (version ${SCHEMA_VERSION}), as SQLite keeps it in sqlite_schema.
-- Generated from the migrations (daemon/store/schema.ts, daemon/store/migrations/) by
-- \`${SCHEMA_SNAPSHOT_COMMAND}\`; do not edit it by hand. Tables are in name order, each followed
-- by its indexes; comments inside a statement are the migration's own.

${schemaText(db)}
`;
  } finally {
    db.close();
  }
}
