import { copyTables, LOG_TRACE_BUCKET_SHIFT, type Migration } from "./shared.js";

// A log record kept three times (the time that orders it, its own time, its observed time), 24
// bytes, though the first is nearly always one of the others; its severity's name, nearly
// always the name its number has; and two indexes led by a time: one to order records, one
// (with the 20-byte content hash) to store each record once. From this version
// (stored-log-fields.ts, docs/store-density.md):
//
// - `time_ns` is NULL when the record's time is `ts_ns` (it had one), and 0 when it had none;
//   `observed_offset_ns` is the observed time less `ts_ns` (0 when they are the same, as they
//   are for a record with no time of its own), NULL when the record had none.
// - `severity_text` is NULL for the data model's short name of the record's severity number
//   ("INFO" for 9, "WARN2" for 14), '' when the record had no text, else the text.
// - One unique index, `logs_by_ts`, on the ordering time and the first 8 bytes of the content
//   hash, both orders records and keeps a resent record out. Its time is the one the old unique
//   key used (the record's time, else its observed time) for every record that has either, so
//   the two hold the same records apart except when 64 bits of a SHA-1 collide between two
//   records of the same nanosecond (two such records can be made on purpose, at about 2^32
//   tries, and would then be kept as one; an old store holding such a pair fails this step
//   and stays at version 17). A record with no time at all is ordered by when it was
//   received, so a resend would come at another time: `logs_timeless_by_hash`, a partial
//   index on the whole hash of those records alone, keeps such a record once, as before.
//
// - The trace index keeps the trace id's last 4 bytes, not 8: a lookup checks the whole id in
//   each row it reads, and two traces' last 4 bytes meet in a bucket of 4,096 rows about once
//   in a million lookups. The index of warnings by service no longer holds the trace id: the
//   audit reads it from the rows of a service's latest 1,000 warnings at most.
//
// The row keeps its whole hash: it is the record's `logId`. The table is copied, keeping every
// row id and the AUTOINCREMENT sequence, in ranges of row ids so the upgrade reports its
// progress; the indexes are built after the copy.

const LOGS_TABLE = `
CREATE TABLE logs_v18 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash BLOB NOT NULL,
  -- ts_ns orders logs: the record time, else the observed time, else the time it was received.
  ts_ns INTEGER NOT NULL,
  -- NULL when the record's time is ts_ns; 0 when it had none
  time_ns INTEGER,
  -- the observed time less ts_ns; NULL when the record had none
  observed_offset_ns INTEGER,
  severity_number INTEGER NOT NULL,
  -- NULL for the short name of severity_number; '' when the record had none
  severity_text TEXT,
  body TEXT,
  -- key ids and values' JSON text, or value ids (attribute-coding.ts)
  attributes BLOB NOT NULL,
  -- 16 and 8 bytes (stored-ids.ts)
  trace_id BLOB,
  span_id BLOB,
  flags INTEGER NOT NULL,
  event_name TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL
)`;

const SHORT_NAME = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]
  .flatMap((name) => [name, `${name}2`, `${name}3`, `${name}4`])
  .map((name, i) => `WHEN ${i + 1} THEN '${name}'`)
  .join(" ");

const LOGS_COPY = `INSERT INTO logs_v18 SELECT id, hash, ts_ns,
  CASE WHEN time_ns <> 0 AND time_ns = ts_ns THEN NULL ELSE time_ns END,
  CASE WHEN observed_ns = 0 THEN NULL ELSE observed_ns - ts_ns END,
  severity_number,
  CASE WHEN severity_text IS NULL OR severity_text = '' THEN ''
    WHEN severity_text IS (CASE severity_number ${SHORT_NAME} END) THEN NULL ELSE severity_text END,
  body, attributes, trace_id, span_id, flags, event_name, dropped_attributes_count,
  service_id, resource_id, scope_id
  FROM logs WHERE id >= ? AND id < ? ORDER BY id`;

const LOG_INDEXES = `
CREATE UNIQUE INDEX logs_by_ts ON logs (ts_ns, substr(hash, 1, 8));
CREATE UNIQUE INDEX logs_timeless_by_hash ON logs (hash) WHERE time_ns = 0 AND observed_offset_ns IS NULL;
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, substr(trace_id, 13, 4)) WHERE trace_id IS NOT NULL;
CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns) WHERE severity_number >= 13;
`;

export const v018LogTimes: Migration = {
  version: 18,
  description:
    "log records keep their times relative to the one that orders them and their severity's usual name as none; one unique index by time and content orders them",
  rewrites: ["logs"],
  progressUnit: "rows",
  up(db, progress) {
    copyTables(
      db,
      [{ table: "logs", key: "id", create: LOGS_TABLE, copy: LOGS_COPY, indexes: LOG_INDEXES }],
      "_v18",
      progress,
    );
  },
};
