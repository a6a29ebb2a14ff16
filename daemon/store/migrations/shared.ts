import type Database from "better-sqlite3";

/**
 * One step of the store's schema. `PRAGMA user_version` holds the version a file is at; each
 * step runs in its own transaction (schema.ts). A released step is frozen: a file written by
 * that release has already run it, so a change to the schema is a new step, never an edit.
 */
export interface Migration {
  version: number;
  description: string;
  /**
   * The tables the step copies whole (a rebuilt table): an upgrade that runs it first checks
   * that the disk has room for the copy (schema.ts). Metadata only: it changes nothing the step does.
   */
  rewrites?: readonly string[];
  /** What a long step counts its progress in (`posting entries`). */
  progressUnit?: string;
  /** Makes the change; a long step tells how far it is with `progress` (done of total, in `progressUnit`). */
  up(db: Database.Database, progress: (done: number, total: number) => void): void;
}

/**
 * Rows per bucket of the span-id index (a power of two: the index keys on id >> SPAN_ID_BUCKET_SHIFT).
 * Read by the indexes of versions 3 and 5 and by the queries that use them: changing it needs
 * a migration that rebuilds those indexes.
 */
export const SPAN_ID_BUCKET_SHIFT = 16;
/**
 * Rows per bucket of the logs' trace index (schema version 6): small, so a commit's new
 * entries fall in a few neighbouring pages; a trace's logs cost one seek per bucket
 * (docs/perf-history/2026-11.md has the measurements). Changing it needs a migration too.
 */
export const LOG_TRACE_BUCKET_SHIFT = 12;

/** A postings table (version 1): one entry per (bucket, key, value, first row), listing row ids. */
export function postingsTable(name: string): string {
  return `CREATE TABLE ${name} (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  first_row INTEGER NOT NULL,
  last_row INTEGER NOT NULL,
  rows TEXT NOT NULL,
  PRIMARY KEY (bucket, key_id, value, first_row)
) WITHOUT ROWID;`;
}

/**
 * Replaces `table` with `copied`, which `copy` creates and fills (its statements, or a function
 * that runs them), keeping its AUTOINCREMENT sequence.
 */
export function rebuildKeepingSequence(
  db: Database.Database,
  table: string,
  copy: string | (() => void),
  copied: string,
): void {
  // Row ids must keep growing from where they were (postings name rows by id), and a copied
  // table starts its sequence at its largest id, which retention may have deleted past.
  const sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck().get(table) as
    | bigint
    | number
    | undefined;
  if (typeof copy === "string") db.exec(copy);
  else copy();
  db.exec(`DROP TABLE ${table}; ALTER TABLE ${copied} RENAME TO ${table};`);
  if (sequence !== undefined) {
    db.prepare("DELETE FROM sqlite_sequence WHERE name = ?").run(table);
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table, sequence);
  }
}

/** A table a step copies whole: created by `create`, filled by `copy` in ranges of `key`, then indexed. */
export interface TableCopy {
  table: string;
  key: string;
  /** Creates the copy, named `table` and the step's suffix (`spans_v16`). */
  create: string;
  /** Fills it: an INSERT ... SELECT of `table`'s rows with `key` in [?, ?). */
  copy: string;
  indexes: string;
}

/**
 * Replaces each of `copies` in turn with its copy (named with `suffix`), keeping row ids and
 * AUTOINCREMENT sequences, and builds its indexes after it (sorting once is faster than
 * inserting every entry at a random place); tells `progress` the rows copied of all of them,
 * ending with all.
 */
export function copyTables(
  db: Database.Database,
  copies: readonly TableCopy[],
  suffix: string,
  progress: (done: number, total: number) => void,
): void {
  const count = (table: string) =>
    Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().safeIntegers(false).get());
  const total = copies.reduce((sum, { table }) => sum + count(table), 0);
  let done = 0;
  for (const { table, key, create, copy, indexes } of copies) {
    const copyTable = () => {
      db.exec(create);
      copyInRanges(db, table, key, db.prepare(copy), (rows) => {
        done += rows;
        progress(done, total);
      });
    };
    rebuildKeepingSequence(db, table, copyTable, `${table}${suffix}`);
    db.exec(indexes);
  }
  progress(total, total);
}

/** Rows copied per statement, between progress reports. */
const CHUNK_ROWS = 65_536;

/** Runs `copy` over `table`'s rows in ranges of CHUNK_ROWS keys, telling `copied` each range's rows. */
export function copyInRanges(
  db: Database.Database,
  table: string,
  key: string,
  copy: Database.Statement,
  copied: (rows: number) => void,
): void {
  const [min, max] = db.prepare(`SELECT min(${key}), max(${key}) FROM ${table}`).raw().safeIntegers(true).get() as [
    bigint | null,
    bigint | null,
  ];
  if (min === null || max === null) return;
  for (let from = min; from <= max; from += BigInt(CHUNK_ROWS)) {
    copied(copy.run(from, from + BigInt(CHUNK_ROWS)).changes);
  }
}
