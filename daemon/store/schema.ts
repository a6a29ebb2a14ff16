import type Database from "better-sqlite3";
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
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The page size of new store files; existing files keep theirs. */
export const PAGE_SIZE = 16384;

export class StoreVersionError extends Error {
  override name = "StoreVersionError";
}

/**
 * Brings a database to the newest schema this build knows, one transaction per step.
 * Returns the versions applied. A file from a newer obs is refused, never modified.
 */
export function migrate(
  db: Database.Database,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
  onUpgrade: (from: number, to: number) => void = () => {},
): number[] {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const current = Number(db.pragma("user_version", { simple: true }));
  if (current > latest) {
    throw new StoreVersionError(
      `the database ${path} has schema version ${current}, written by a newer obs; this obs reads up to version ${latest}. Upgrade obs or start it with another --db.`,
    );
  }
  if (current > 0 && current < latest) onUpgrade(current, latest);
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
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.version);
  }
  return applied;
}
