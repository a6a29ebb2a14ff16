import { copyTables, LOG_TRACE_BUCKET_SHIFT, type Migration, SPAN_ID_BUCKET_SHIFT, type TableCopy } from "./shared.js";

// Trace and span ids were their lower-case hex text: 32 characters for a trace id, 16 for a
// span id, in the rows and again in every index that holds them. From this version they are
// their bytes (stored-ids.ts): about 34 bytes less per span in the spans table and its indexes,
// 8 more in the trace summaries, 20 per log record (docs/store-density.md). Spans, traces, log
// records and orphan entries are joined and compared on these columns, so all four change in
// this one step. The tables are copied, keeping every row id and AUTOINCREMENT sequence, in
// ranges of row ids so the upgrade reports its progress; indexes are built after the copy
// (sorting once is faster than inserting every entry at a random place).
//
// The two indexes that find rows by id within row-id buckets keep part of the id only: the
// last 4 bytes of a span id, the last 8 of a trace id (the logs' one no longer holds the span
// id), and the query checks the whole id in each row it then reads. The last bytes, because
// those are the random ones: W3C Trace Context puts a trace id's randomness at its right, and a
// 64-bit id widened to 128 (B3, older Jaeger, Datadog) has zeros or a timestamp at its left,
// where a prefix would name every such row of a bucket alike.
//
// Every stored id was checked by the decoders and written as lower-case hex of its exact size,
// so unhex() reads each. A text it could not read (none was ever written) would keep its own
// bytes, and come back as their hex, rather than fail the upgrade and leave the store
// unopenable. Two texts of one id in different cases (never written either) would still fail
// it, on the unique index of trace ids.

const bytes = (column: string) => `coalesce(unhex(${column}), CAST(${column} AS BLOB))`;

const SPANS_TABLE = `
CREATE TABLE spans_v16 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  -- ids are their bytes, 8 for a span id (stored-ids.ts)
  span_id BLOB NOT NULL,
  parent_span_id BLOB,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  trace_state TEXT,
  flags INTEGER NOT NULL,
  -- key ids and values' JSON text, or value ids (attribute-coding.ts)
  attributes BLOB NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL
)`;
const SPANS_COPY = `INSERT INTO spans_v16 SELECT id, trace_key, ${bytes("span_id")}, ${bytes("parent_span_id")},
  service_id, resource_id, scope_id, name, kind, start_ns, end_ns, status_code, status_message, trace_state, flags,
  attributes, events, links, dropped_attributes_count, dropped_events_count, dropped_links_count
  FROM spans WHERE id >= ? AND id < ? ORDER BY id`;
const SPAN_INDEXES = `
CREATE UNIQUE INDEX spans_by_trace ON spans (trace_key, span_id);
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, substr(span_id, 5, 4));
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

const TRACES_TABLE = `
CREATE TABLE traces_v16 (
  trace_key INTEGER PRIMARY KEY,
  -- 16 bytes (stored-ids.ts)
  trace_id BLOB NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id BLOB,
  root_service_id INTEGER,
  root_name TEXT
)`;
const TRACES_COPY = `INSERT INTO traces_v16 SELECT trace_key, ${bytes("trace_id")}, start_ns, end_ns, span_count,
  error_count, ${bytes("root_span_id")}, root_service_id, root_name
  FROM traces WHERE trace_key >= ? AND trace_key < ? ORDER BY trace_key`;
const TRACE_INDEXES = `
CREATE UNIQUE INDEX traces_by_id ON traces (trace_id);
CREATE INDEX traces_by_root ON traces (root_service_id, root_name, start_ns, end_ns, error_count, trace_id);
CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name, trace_id);
`;

const LOGS_TABLE = `
CREATE TABLE logs_v16 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash BLOB NOT NULL,
  -- ts_ns orders logs: the record time, else the observed time, else the time it was received.
  ts_ns INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  observed_ns INTEGER NOT NULL,
  severity_number INTEGER NOT NULL,
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
const LOGS_COPY = `INSERT INTO logs_v16 SELECT id, hash, ts_ns, time_ns, observed_ns, severity_number, severity_text,
  body, attributes, ${bytes("trace_id")}, ${bytes("span_id")}, flags, event_name, dropped_attributes_count,
  service_id, resource_id, scope_id
  FROM logs WHERE id >= ? AND id < ? ORDER BY id`;
const LOG_INDEXES = `
CREATE UNIQUE INDEX logs_by_content ON logs (CASE WHEN time_ns <> 0 THEN time_ns ELSE observed_ns END, hash);
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, substr(trace_id, 9, 8)) WHERE trace_id IS NOT NULL;
CREATE INDEX logs_by_ts ON logs (ts_ns);
CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns, trace_id) WHERE severity_number >= 13;
`;

const ORPHANS = `
CREATE TABLE orphan_spans_v16 (
  trace_id BLOB NOT NULL,
  span_id BLOB NOT NULL,
  parent_span_id BLOB NOT NULL,
  start_ns INTEGER NOT NULL,
  PRIMARY KEY (trace_id, span_id)
) WITHOUT ROWID;
INSERT INTO orphan_spans_v16 SELECT ${bytes("trace_id")}, ${bytes("span_id")}, ${bytes("parent_span_id")}, start_ns
  FROM orphan_spans;
DROP TABLE orphan_spans;
ALTER TABLE orphan_spans_v16 RENAME TO orphan_spans;
CREATE INDEX orphan_spans_by_start ON orphan_spans (start_ns);
`;

const COPIES: readonly TableCopy[] = [
  { table: "traces", key: "trace_key", create: TRACES_TABLE, copy: TRACES_COPY, indexes: TRACE_INDEXES },
  { table: "spans", key: "id", create: SPANS_TABLE, copy: SPANS_COPY, indexes: SPAN_INDEXES },
  { table: "logs", key: "id", create: LOGS_TABLE, copy: LOGS_COPY, indexes: LOG_INDEXES },
];

export const v016IdsAsBytes: Migration = {
  version: 16,
  description: "trace and span ids stored as their bytes, not their hex text; the id indexes keep their last bytes",
  rewrites: ["spans", "traces", "logs", "orphan_spans"],
  progressUnit: "rows",
  up(db, progress) {
    copyTables(db, COPIES, "_v16", progress);
    db.exec(ORPHANS);
  },
};
