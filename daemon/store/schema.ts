import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { formatMebibytes } from "../../shared/byte-size.js";
import { LOG_TRACE_BUCKET_SHIFT, type Migration, SPAN_ID_BUCKET_SHIFT } from "./migrations/shared.js";
import { v001Initial } from "./migrations/v001-initial.js";
import { v002AuditRollups } from "./migrations/v002-audit-rollups.js";
import { v003SpanIdBuckets } from "./migrations/v003-span-id-buckets.js";
import { v004AppendedSpanRollups } from "./migrations/v004-appended-span-rollups.js";
import { v005TraceKeys } from "./migrations/v005-trace-keys.js";
import { v006LogTraceBuckets } from "./migrations/v006-log-trace-buckets.js";
import { v007LogsByContent } from "./migrations/v007-logs-by-content.js";
import { v008Metrics } from "./migrations/v008-metrics.js";
import { v009ForwardOutbox } from "./migrations/v009-forward-outbox.js";
import { v010RollupTrustBounds } from "./migrations/v010-rollup-trust-bounds.js";
import { v011PostingRowBlobs } from "./migrations/v011-posting-row-blobs.js";
import { v012CodedAttributes } from "./migrations/v012-coded-attributes.js";
import { v013MetricSlotPacks } from "./migrations/v013-metric-slot-packs.js";
import { v014AttributeValues } from "./migrations/v014-attribute-values.js";
import { v015MetricIdsNotReused } from "./migrations/v015-metric-ids-not-reused.js";
import { v016IdsAsBytes } from "./migrations/v016-ids-as-bytes.js";
import { v017HashedPostings } from "./migrations/v017-hashed-postings.js";
import { v018LogTimes } from "./migrations/v018-log-times.js";
import { v019SpanNames } from "./migrations/v019-span-names.js";
import { v020TaggedAttributes } from "./migrations/v020-tagged-attributes.js";
import { v021CompactSpanRollups } from "./migrations/v021-compact-span-rollups.js";
import { v022LeanSpans } from "./migrations/v022-lean-spans.js";
import { v023SeriesLastTimes } from "./migrations/v023-series-last-times.js";
import { v024MetricPointJournal } from "./migrations/v024-metric-point-journal.js";
import { v025UnorderedResourceHashes } from "./migrations/v025-unordered-resource-hashes.js";
import { v026ExemplarPointTimes } from "./migrations/v026-exemplar-point-times.js";

export { LOG_TRACE_BUCKET_SHIFT, type Migration, SPAN_ID_BUCKET_SHIFT };

/**
 * The store's schema, as an ordered list of migrations, one frozen file each under
 * migrations/. `PRAGMA user_version` holds the version a file is at; an older file is migrated
 * forward, a newer one is refused. The schema they add up to is in schema.sql (generated:
 * `npm run schema:snapshot`), the place to read it; a new step is a new file appended here,
 * then a regenerated schema.sql (test/unit/store/schema-snapshot.test.ts checks both).
 */
export const MIGRATIONS: readonly Migration[] = [
  v001Initial,
  v002AuditRollups,
  v003SpanIdBuckets,
  v004AppendedSpanRollups,
  v005TraceKeys,
  v006LogTraceBuckets,
  v007LogsByContent,
  v008Metrics,
  v009ForwardOutbox,
  v010RollupTrustBounds,
  v011PostingRowBlobs,
  v012CodedAttributes,
  v013MetricSlotPacks,
  v014AttributeValues,
  v015MetricIdsNotReused,
  v016IdsAsBytes,
  v017HashedPostings,
  v018LogTimes,
  v019SpanNames,
  v020TaggedAttributes,
  v021CompactSpanRollups,
  v022LeanSpans,
  v023SeriesLastTimes,
  v024MetricPointJournal,
  v025UnorderedResourceHashes,
  v026ExemplarPointTimes,
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The page size of new store files; existing files keep theirs. */
export const PAGE_SIZE = 16384;

export class StoreVersionError extends Error {
  override name = "StoreVersionError";
}

/** An upgrade that would run out of disk half way: refused before anything is changed. */
export class StoreUpgradeSpaceError extends Error {
  override name = "StoreUpgradeSpaceError";
}

export interface MigrateOptions {
  /** Hears, before it starts, that an older file is about to be migrated. */
  onUpgrade?: (from: number, to: number) => void;
  /** Hears each step of an upgrade as it ends, with how long it took. */
  onStep?: (migration: Migration, ms: number) => void;
  /** Hears how far a long step of an upgrade is, as often as the step tells. */
  onProgress?: (migration: Migration, done: number, total: number) => void;
  /** Bytes free to this process on the disk holding `dir` (statfs; replaced in tests). */
  freeBytes?: (dir: string) => number;
}

function diskFreeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}

/** Pages of `tables` and their indexes (those that exist), from dbstat. */
function tableBytes(db: Database.Database, tables: readonly string[]): number {
  const names = db
    .prepare(`SELECT name FROM sqlite_schema WHERE tbl_name IN (SELECT value FROM json_each(?))`)
    .pluck()
    .all(JSON.stringify(tables)) as string[];
  if (names.length === 0) return 0;
  const bytes = db
    .prepare(
      "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE aggregate = 1 AND name IN (SELECT value FROM json_each(?))",
    )
    .pluck()
    .get(JSON.stringify(names));
  return Number(bytes);
}

/**
 * Refuses an upgrade whose steps copy tables whole (`rewrites`) when the disk lacks room for
 * them: a step writes its copy beside the old tables, and the write-ahead log holds it too
 * until a checkpoint, so it needs about twice their size free. Each step commits on its own
 * and the next reuses the pages it freed, so the largest step is what must fit. Checked before
 * the first step, so a refused store is left exactly as it was.
 */
function checkUpgradeSpace(
  db: Database.Database,
  path: string,
  pending: readonly Migration[],
  from: number,
  to: number,
  freeBytes: (dir: string) => number,
): void {
  let largest: { tables: readonly string[]; bytes: number } | null = null;
  for (const migration of pending) {
    if (!migration.rewrites || migration.rewrites.length === 0) continue;
    const bytes = tableBytes(db, migration.rewrites);
    if (largest === null || bytes > largest.bytes) largest = { tables: migration.rewrites, bytes };
  }
  if (largest === null) return;
  const needed = 2 * largest.bytes;
  const free = freeBytes(dirname(path));
  if (free >= needed) return;
  throw new StoreUpgradeSpaceError(
    `upgrading ${path} from schema version ${from} to ${to} copies the ${largest.tables.join(", ")} tables (${formatMebibytes(largest.bytes)} with their indexes) and needs about ${formatMebibytes(needed)} free on the disk that holds it; ${formatMebibytes(free)} is free. Nothing was changed: free some space, or move the store to a larger disk and start obsd with --db there.`,
  );
}

/**
 * Brings a database to the newest schema this build knows, one transaction per step.
 * Returns the versions applied. A file from a newer obs is refused, never modified; so is an
 * upgrade the disk has no room for (checkUpgradeSpace).
 */
export function migrate(
  db: Database.Database,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
  options: MigrateOptions = {},
): number[] {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const current = Number(db.pragma("user_version", { simple: true }));
  if (current > latest) {
    throw new StoreVersionError(
      `the database ${path} has schema version ${current}, written by a newer obs; this obs reads up to version ${latest}. Upgrade obs or start it with another --db.`,
    );
  }
  const upgrading = current > 0 && current < latest;
  if (upgrading) {
    // The notice first: measuring the copied tables reads every page of them, and `obs start`
    // waits longer once the log shows an upgrade under way.
    options.onUpgrade?.(current, latest);
    const pending = migrations.filter((migration) => migration.version > current);
    checkUpgradeSpace(db, path, pending, current, latest, options.freeBytes ?? diskFreeBytes);
  }
  if (current === 0) {
    // Both must precede the first table. auto_vacuum lets retention hand freed pages back to
    // the filesystem. Pages of 16 KiB instead of 4: a commit writes each changed page to the
    // log as its own frame, and the random-keyed indexes change pages all over; fewer, larger
    // frames made the writer's commits cheaper (docs/PERFORMANCE.md, "What moved the numbers").
    db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma(`page_size = ${PAGE_SIZE}`);
    // Once the file has been read (user_version above), a new page size waits for a VACUUM;
    // on an empty file it costs nothing.
    db.exec("VACUUM");
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    const started = performance.now();
    db.transaction(() => {
      migration.up(db, (done, total) => {
        if (upgrading) options.onProgress?.(migration, done, total);
      });
      db.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.version);
    if (upgrading) options.onStep?.(migration, performance.now() - started);
  }
  return applied;
}
