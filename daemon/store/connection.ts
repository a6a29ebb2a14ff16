import { closeSync, existsSync, openSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../../shared/state-dir.js";
import { ensureCursorKey } from "./cursor-key.js";
import { markBucketedPostings } from "./postings.js";
import { type MigrateOptions, migrate } from "./schema.js";
import { StoreOpenError } from "./store-errors.js";
import { refuseForeignStoreFiles, restrictFileToOwner } from "./store-files.js";

/** The largest write-ahead log between checkpoints, and the smallest (for tiny size caps). */
const MAX_WAL_BYTES = 32 * 1024 * 1024;
const MIN_WAL_BYTES = 256 * 1024;

/**
 * How far the write-ahead log may grow before a checkpoint, for a database capped at
 * `maxDbBytes`. A large log makes ingestion faster (pages rewritten by many commits are copied
 * into the main file once per checkpoint), but it lives on the same disk as the capped file:
 * with a small cap on a small disk a 32 MiB log alone fills it. So the log gets at most an
 * eighth of the cap, and the file left after a checkpoint is truncated to twice that.
 */
export function walLimits(
  maxDbBytes: number,
  pageSize: number,
): { autocheckpointPages: number; journalSizeLimit: number } {
  const bytes = maxDbBytes > 0 ? Math.min(MAX_WAL_BYTES, Math.max(MIN_WAL_BYTES, maxDbBytes / 8)) : MAX_WAL_BYTES;
  const autocheckpointPages = Math.floor(bytes / pageSize);
  return { autocheckpointPages, journalSizeLimit: 2 * autocheckpointPages * pageSize };
}

/**
 * Makes the store owner-only before SQLite opens it: the file is created 0600 here (SQLite
 * would create it 0644 under the usual umask), and SQLite gives the -wal and -shm it creates
 * the database file's mode. A store, -wal or -shm left by an older version is tightened too.
 */
function restrictToOwner(path: string): void {
  makePrivateDir(dirname(path));
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  // Links beside the store are refused here, and never followed to set a mode. SQLite names
  // the log after the real path (it follows a link at the path given).
  const real = realpathSync(path);
  refuseForeignStoreFiles(real);
  for (const file of [real, `${real}-wal`, `${real}-shm`]) restrictFileToOwner(file);
}

/**
 * Refuses, untouched, a file at `path` that is not an obs store: one that is not a SQLite
 * database, or one that holds tables with no schema version (an obs store has one from its first
 * table on) or without obs's own tables: another application's. A missing or empty file, or a database with
 * nothing in it, becomes a new store. Checked before the file's mode is set or anything
 * written: a new store's first steps rewrite the whole file (its page size and auto_vacuum, by
 * VACUUM).
 */
function refuseForeignDatabase(path: string): void {
  try {
    if (statSync(path).size === 0) return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  // A read-only connection to a database in WAL mode makes its -wal and -shm where missing:
  // empty, as it writes nothing; those it made go again, so a refused file's folder is as it was.
  const sideFiles = [`${path}-wal`, `${path}-shm`].filter((file) => !existsSync(file));
  const problem = foreignDatabaseProblem(path);
  if (problem === null) return;
  for (const file of sideFiles) rmSync(file, { force: true });
  throw new StoreOpenError(
    `${path} is not an obs store: ${problem}; obs leaves it as it is. Give --db a new file, or an obs store`,
    "open",
  );
}

/** What makes the database at `path` another application's, read through a read-only connection; null when nothing does. */
function foreignDatabaseProblem(path: string): string | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const version = Number(db.pragma("user_version", { simple: true }));
    const objects = Number(db.prepare("SELECT count(*) FROM sqlite_master").pluck().get());
    if (objects === 0) return null;
    if (version === 0)
      return `it is a SQLite database of ${objects} tables, indexes or views and no obs schema version`;
    // Other applications number their schemas too: a version alone does not make an obs store,
    // whose every version has had these two tables since its first.
    const own = Number(
      db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'counters')")
        .pluck()
        .get(),
    );
    return own === 2 ? null : `it is a SQLite database of schema version ${version} without obs's tables`;
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_NOTADB") return "it is not a SQLite database";
    throw error;
  } finally {
    db?.close();
  }
}

/**
 * Opens the write connection: creates the folder and file, migrates, and sets WAL mode.
 * `maxDbBytes` (the size cap; 0 for none) bounds the write-ahead log (walLimits). `upgrade`
 * hears of an older file's migration: before it starts, as a long step goes, and as each step ends.
 */
export function openWriteConnection(
  path: string,
  maxDbBytes = 0,
  upgrade: Pick<MigrateOptions, "onUpgrade" | "onStep" | "onProgress"> = {},
): { db: Database.Database; migrated: number[] } {
  refuseForeignDatabase(path);
  restrictToOwner(path);
  const db = new Database(path);
  try {
    db.pragma("busy_timeout = 5000");
    const migrated = migrate(db, path, undefined, upgrade);
    ensureCursorKey(db);
    markBucketedPostings(db);
    db.pragma("journal_mode = WAL");
    // In WAL mode NORMAL survives a crash of this process; only power loss can drop the last commits.
    db.pragma("synchronous = NORMAL");
    // 16 MiB: a larger cache measured no faster for this write pattern and cost resident memory.
    db.pragma("cache_size = -16384");
    db.pragma("temp_store = MEMORY");
    // Checkpoint every 32 MiB of WAL instead of 4 MiB (less for small caps): pages rewritten by
    // many commits are copied into the database once per checkpoint, which raised ingestion
    // throughput (docs/perf-history/design-decisions.md).
    const wal = walLimits(maxDbBytes, Number(db.pragma("page_size", { simple: true })));
    db.pragma(`wal_autocheckpoint = ${wal.autocheckpointPages}`);
    db.pragma(`journal_size_limit = ${wal.journalSizeLimit}`);
    db.defaultSafeIntegers(true);
    return { db, migrated };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A read connection: never writes, never waits on the writer (WAL readers see the last commit). */
export function openReadConnection(path: string): Database.Database {
  const db = new Database(path, { fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  db.pragma("query_only = ON");
  db.pragma("cache_size = -32768");
  db.defaultSafeIntegers(true);
  return db;
}
