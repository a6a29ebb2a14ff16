import type Database from "better-sqlite3";
import { RollupBuffer } from "../rollup-buffer.js";
import type { Migration } from "./shared.js";

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
-- A rowid table: rows of a busy operation carry a large histogram, which a WITHOUT ROWID
-- table rebalances on every rewrite (measured slower; docs/perf-history/2026-11.md). A slot may hold
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

export const v002AuditRollups: Migration = {
  version: 2,
  description: "audit rollups per minute and hour, spans waiting for their parent, covering trace indexes",
  up(db) {
    db.exec(V2);
    backfillRollups(db);
  },
};
