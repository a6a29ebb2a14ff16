import { type Migration, postingsTable } from "./shared.js";

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

export const v001Initial: Migration = {
  version: 1,
  description: "spans, logs, trace summaries, attribute postings, counters",
  up(db) {
    db.exec(V1);
  },
};
