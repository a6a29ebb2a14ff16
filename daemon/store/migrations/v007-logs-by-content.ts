import { LOG_TRACE_BUCKET_SHIFT, type Migration, rebuildKeepingSequence } from "./shared.js";

// A log record's hash (its logId) is a SHA-1 of its content, so the column's UNIQUE index took
// each new record to a random page: a commit rewrote pages all over it, the more the larger the
// store (docs/PERFORMANCE.md, "What moved the numbers"). The hash covers the record's time and
// observed time, so two records with one hash have one time: keyed by time first, the same
// uniqueness holds, and new records land where the newest are. The time is the record's own,
// else its observed time (never the time it was received, which a resend would not share). A
// column's UNIQUE cannot be dropped, so the table is copied, keeping every row id.
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

export const v007LogsByContent: Migration = {
  version: 7,
  description: "log records unique by time and content hash, so new logs touch only the newest pages of that index",
  rewrites: ["logs"],
  up(db) {
    rebuildKeepingSequence(db, "logs", V7_TABLE, "logs_v7");
    db.exec(V7_INDEXES);
  },
};
