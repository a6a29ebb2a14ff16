import type Database from "better-sqlite3";
import { RollupBuffer } from "./rollup-buffer.js";

/**
 * The store's schema, as an ordered list of migrations. `PRAGMA user_version` holds the
 * version a file is at; an older file is migrated forward, a newer one is refused.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

function postingsTable(name: string): string {
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

const V1 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO counters (name, value) VALUES ('spans', 0), ('logs', 0), ('traces', 0), ('services', 0), ('latest_ns', 0);

CREATE TABLE services (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  first_seen_ns INTEGER NOT NULL,
  last_seen_ns INTEGER NOT NULL
);
CREATE TABLE resources (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  service_id INTEGER NOT NULL,
  attributes TEXT NOT NULL,
  dropped_attributes_count INTEGER NOT NULL,
  schema_url TEXT
);
CREATE TABLE scopes (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  version TEXT,
  attributes TEXT NOT NULL,
  dropped_attributes_count INTEGER NOT NULL,
  schema_url TEXT
);
-- Attribute keys, by a small integer id, for the postings tables.
CREATE TABLE attr_keys (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE
);

-- AUTOINCREMENT: row ids are never reused, so a posting can never point at a newer row.
CREATE TABLE spans (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_id TEXT NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  trace_state TEXT,
  flags INTEGER NOT NULL,
  attributes TEXT NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL,
  UNIQUE (trace_id, span_id)
);
CREATE INDEX spans_by_start ON spans (start_ns);
-- Span ids are unique only within their trace; /api/spans/:spanId looks them up alone.
CREATE INDEX spans_by_span_id ON spans (span_id);
-- Inverted index for exact attribute matches: one entry per (key, value) per write
-- transaction, listing the ascending ids of the rows that carry it (a JSON array). Many rows
-- share one B-tree entry, which is what makes indexing every attribute affordable. Entries
-- are grouped by row-id bucket (first_row / 8192) so new ones land in a small, hot region
-- instead of all over the index; a lookup seeks once per bucket. Entries may still name rows
-- that retention deleted; queries join to the live rows.
${postingsTable("span_postings")}

-- Trace summaries, maintained on ingest because children often arrive before their root.
CREATE TABLE traces (
  trace_id TEXT PRIMARY KEY,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id TEXT,
  root_service_id INTEGER,
  root_name TEXT
) WITHOUT ROWID;
CREATE INDEX traces_by_start ON traces (start_ns);
CREATE TABLE trace_services (
  trace_id TEXT NOT NULL,
  service_id INTEGER NOT NULL,
  PRIMARY KEY (trace_id, service_id)
) WITHOUT ROWID;

CREATE TABLE logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash BLOB NOT NULL UNIQUE,
  -- ts_ns orders logs: the record time, else the observed time, else the time it was received.
  ts_ns INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  observed_ns INTEGER NOT NULL,
  severity_number INTEGER NOT NULL,
  severity_text TEXT,
  body TEXT,
  attributes TEXT NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  flags INTEGER NOT NULL,
  event_name TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL
);
CREATE INDEX logs_by_ts ON logs (ts_ns);
CREATE INDEX logs_by_trace ON logs (trace_id, span_id) WHERE trace_id IS NOT NULL;
${postingsTable("log_postings")}
`;

// What the audit reads instead of every row of a long window.
const V2 = `
-- Per minute and per hour (width in ns; slot = its start): each operation's span count, latest
-- start, duration histogram (operation-rollup.ts) and slowest spans. Rows of a slot that
-- retention has partly trimmed are never read (rollup-slots.ts) and go once it is empty.
CREATE TABLE span_rollups (
  width INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  spans INTEGER NOT NULL,
  newest_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  histogram BLOB NOT NULL,
  slowest TEXT NOT NULL
);
-- A rowid table: rows of a busy operation carry a histogram of a kilobyte or more, which a
-- WITHOUT ROWID table rebalances on every rewrite (measured twice as slow). A slot may hold
-- several rows of one operation, added up on read (rollup-buffer.ts; unique before version 4).
CREATE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name);
CREATE TABLE log_rollups (
  width INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  logs INTEGER NOT NULL,
  warnings INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  newest_ns INTEGER NOT NULL,
  PRIMARY KEY (width, slot, service_id)
) WITHOUT ROWID;
-- Stored spans whose parent is not stored (parent-links.ts).
CREATE TABLE orphan_spans (
  trace_id TEXT NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT NOT NULL,
  start_ns INTEGER NOT NULL,
  PRIMARY KEY (trace_id, span_id)
) WITHOUT ROWID;
CREATE INDEX orphan_spans_by_start ON orphan_spans (start_ns);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns, trace_id) WHERE severity_number >= 13;
-- Covering: trace lists and audits of a window never visit the table.
DROP INDEX traces_by_start;
CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name);
CREATE INDEX traces_by_root ON traces (root_service_id, root_name, start_ns, end_ns, error_count);
`;

/** Rows read per step while a migration fills the rollups from an existing store. */
const BACKFILL_ROWS = 50_000;

function backfillRollups(db: Database.Database): void {
  const rollups = new RollupBuffer(db);
  const spans = db
    .prepare(
      "SELECT id, service_id, name, start_ns, duration_ns, span_id, trace_id FROM spans WHERE id > ? ORDER BY id LIMIT ?",
    )
    .raw()
    .safeIntegers(true);
  for (let after: bigint = 0n; ; ) {
    const rows = spans.all(after, BACKFILL_ROWS) as [bigint, bigint, string, bigint, bigint, string, string][];
    if (rows.length === 0) break;
    for (const [, serviceId, name, startNs, durationNs, spanId, traceId] of rows) {
      rollups.addSpan(Number(serviceId), name, startNs, Number(durationNs), spanId, traceId);
    }
    rollups.flush();
    after = rows[rows.length - 1]?.[0] ?? after;
  }
  const logs = db
    .prepare("SELECT id, service_id, ts_ns, severity_number FROM logs WHERE id > ? ORDER BY id LIMIT ?")
    .raw()
    .safeIntegers(true);
  for (let after: bigint = 0n; ; ) {
    const rows = logs.all(after, BACKFILL_ROWS) as [bigint, bigint, bigint, bigint][];
    if (rows.length === 0) break;
    for (const [, serviceId, tsNs, severity] of rows) rollups.addLog(Number(serviceId), tsNs, Number(severity));
    rollups.flush();
    after = rows[rows.length - 1]?.[0] ?? after;
  }
  db.exec(`INSERT INTO orphan_spans (trace_id, span_id, parent_span_id, start_ns)
    SELECT s.trace_id, s.span_id, s.parent_span_id, s.start_ns FROM spans s
    WHERE s.parent_span_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)`);
}

/** Rows per bucket of the span-id index (a power of two: the index keys on id >> SPAN_ID_BUCKET_SHIFT). */
export const SPAN_ID_BUCKET_SHIFT = 16;
/**
 * Rows per bucket of the logs' trace index (schema version 6): 4,096, so a commit's new entries
 * fall in a region of a few dozen pages (buckets of 65,536 still spread a commit over about
 * 230). A trace's logs cost one seek per bucket: about 250 at a million logs.
 */
export const LOG_TRACE_BUCKET_SHIFT = 12;

// Span ids are random, so an index on them alone takes each new span to a random leaf: every
// commit rewrote most of the index's pages, more as the store grew (a quarter of the writer's
// time on a store of 200k spans). Keyed by row-id bucket first, new entries land in the last
// bucket; a lookup by span id seeks once per bucket (SqliteReader.span).
const V3 = `
DROP INDEX spans_by_span_id;
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, span_id);
`;

// Span rollups are appended per commit and merged every few commits (rollup-buffer.ts), so an
// operation's slot may hold several rows.
const V4 = `
DROP INDEX span_rollups_by_slot;
CREATE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name);
`;

// Trace ids are random, so every index keyed by them takes each new span to a random page: the
// spans' (trace_id, span_id) key alone was rewritten nearly whole by every commit, more as the
// store grew. Traces now get an integer key in order of arrival, and spans, their unique key
// and trace_services refer to a trace by it: a new trace's rows land at the end of each index.
// Only traces' own trace_id index stays random, with one entry per trace instead of per span.
const V5_TABLES = `
CREATE TABLE traces_v5 (
  trace_key INTEGER PRIMARY KEY,
  trace_id TEXT NOT NULL UNIQUE,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id TEXT,
  root_service_id INTEGER,
  root_name TEXT
);
INSERT INTO traces_v5 (trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name)
  SELECT trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name
  FROM traces ORDER BY start_ns, trace_id;
-- Spans are copied by joining to their trace: a span whose summary is missing (none should be)
-- gets one rather than being left behind.
INSERT INTO traces_v5 (trace_id, start_ns, end_ns, span_count, error_count)
  SELECT trace_id, min(start_ns), max(end_ns), count(*), coalesce(sum(status_code = 2), 0) FROM spans
  WHERE trace_id IN (SELECT trace_id FROM spans EXCEPT SELECT trace_id FROM traces) GROUP BY trace_id;
UPDATE counters SET value = (SELECT count(*) FROM traces_v5) WHERE name = 'traces';
DROP TABLE traces;
ALTER TABLE traces_v5 RENAME TO traces;
-- Still covering, now that trace_id is no longer the table's key.
CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name, trace_id);
CREATE INDEX traces_by_root ON traces (root_service_id, root_name, start_ns, end_ns, error_count, trace_id);

CREATE TABLE trace_services_v5 (
  trace_key INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  PRIMARY KEY (trace_key, service_id)
) WITHOUT ROWID;
INSERT INTO trace_services_v5 (trace_key, service_id)
  SELECT t.trace_key, ts.service_id FROM trace_services ts JOIN traces t ON t.trace_id = ts.trace_id;
DROP TABLE trace_services;
ALTER TABLE trace_services_v5 RENAME TO trace_services;

CREATE TABLE spans_v5 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  span_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  parent_span_id TEXT,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  trace_state TEXT,
  flags INTEGER NOT NULL,
  attributes TEXT NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL,
  UNIQUE (trace_key, span_id)
);
INSERT INTO spans_v5 SELECT s.id, t.trace_key, s.span_id, s.trace_id, s.parent_span_id, s.service_id, s.resource_id,
  s.scope_id, s.name, s.kind, s.start_ns, s.end_ns, s.duration_ns, s.status_code, s.status_message, s.trace_state,
  s.flags, s.attributes, s.events, s.links, s.dropped_attributes_count, s.dropped_events_count, s.dropped_links_count
  FROM spans s JOIN traces t ON t.trace_id = s.trace_id ORDER BY s.id;
`;

const V5_INDEXES = `
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, span_id);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

function migrateToTraceKeys(db: Database.Database): void {
  rebuildKeepingSequence(db, "spans", V5_TABLES, "spans_v5");
  db.exec(V5_INDEXES);
}

// Logs that carry a trace context took each new entry of logs_by_trace to a random page, as the
// spans' trace-id keys did: at 512k such logs a commit of 4,096 wrote 1,784 pages of it. Keyed
// by row-id bucket first, as spans_by_span_id, new entries land in the newest bucket; logs of
// a trace are found with one seek per bucket (SqliteReader).
const V6 = `
DROP INDEX logs_by_trace;
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, trace_id, span_id) WHERE trace_id IS NOT NULL;
`;

// A log record's hash (its logId) is a SHA-1 of its content, so the column's UNIQUE index took
// each new record to a random page: at 512k logs a commit of 4,096 wrote 978 pages of it, the
// more the larger the store. The hash covers the record's time and observed time, so two
// records with one hash have one time: keyed by time first, the same uniqueness holds, and new
// records land where the newest are. The time is the record's own, else its observed time
// (never the time it was received, which a resend would not share). A column's UNIQUE cannot
// be dropped, so the table is copied, keeping every row id.
const V7_TABLE = `
CREATE TABLE logs_v7 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash BLOB NOT NULL,
  -- ts_ns orders logs: the record time, else the observed time, else the time it was received.
  ts_ns INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  observed_ns INTEGER NOT NULL,
  severity_number INTEGER NOT NULL,
  severity_text TEXT,
  body TEXT,
  attributes TEXT NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  flags INTEGER NOT NULL,
  event_name TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL
);
INSERT INTO logs_v7 SELECT id, hash, ts_ns, time_ns, observed_ns, severity_number, severity_text, body, attributes,
  trace_id, span_id, flags, event_name, dropped_attributes_count, service_id, resource_id, scope_id
  FROM logs ORDER BY id;
`;

const V7_INDEXES = `
CREATE UNIQUE INDEX logs_by_content ON logs (CASE WHEN time_ns <> 0 THEN time_ns ELSE observed_ns END, hash);
CREATE INDEX logs_by_ts ON logs (ts_ns);
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, trace_id, span_id) WHERE trace_id IS NOT NULL;
CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns, trace_id) WHERE severity_number >= 13;
`;

/** Replaces `table` with `copied`, which the statements `copy` create and fill, keeping its AUTOINCREMENT sequence. */
function rebuildKeepingSequence(db: Database.Database, table: string, copy: string, copied: string): void {
  // Row ids must keep growing from where they were (postings name rows by id), and a copied
  // table starts its sequence at its largest id, which retention may have deleted past.
  const sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck().get(table) as
    | bigint
    | number
    | undefined;
  db.exec(copy);
  db.exec(`DROP TABLE ${table}; ALTER TABLE ${copied} RENAME TO ${table};`);
  if (sequence !== undefined) {
    db.prepare("DELETE FROM sqlite_sequence WHERE name = ?").run(table);
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table, sequence);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "spans, logs, trace summaries, attribute postings, counters",
    up(db) {
      db.exec(V1);
    },
  },
  {
    version: 2,
    description: "audit rollups per minute and hour, spans waiting for their parent, covering trace indexes",
    up(db) {
      db.exec(V2);
      backfillRollups(db);
    },
  },
  {
    version: 3,
    description: "span-id index grouped by row-id bucket, so new spans touch only its newest pages",
    up(db) {
      db.exec(V3);
    },
  },
  {
    version: 4,
    description: "span rollups appended per commit and merged every few commits, instead of rewritten by each",
    up(db) {
      db.exec(V4);
    },
  },
  {
    version: 5,
    description: "traces keyed by arrival order; spans and trace services refer to them by that key",
    up(db) {
      migrateToTraceKeys(db);
    },
  },
  {
    version: 6,
    description: "the logs' trace index grouped by row-id bucket, so new logs touch only its newest pages",
    up(db) {
      db.exec(V6);
    },
  },
  {
    version: 7,
    description: "log records unique by time and content hash, so new logs touch only the newest pages of that index",
    up(db) {
      rebuildKeepingSequence(db, "logs", V7_TABLE, "logs_v7");
      db.exec(V7_INDEXES);
    },
  },
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
    // log as its own frame, and the random-keyed indexes change pages all over; a quarter as
    // many frames made the writer's commits about a third cheaper (docs/perf-history/2026-11.md).
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
