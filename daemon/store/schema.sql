-- The schema of a new obs store (version 26), as SQLite keeps it in sqlite_schema.
-- Generated from the migrations (daemon/store/schema.ts, daemon/store/migrations/) by
-- `npm run schema:snapshot`; do not edit it by hand. Tables are in name order, each followed
-- by its indexes; comments inside a statement are the migration's own.

PRAGMA user_version = 26;

CREATE TABLE attr_keys (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE
);

CREATE TABLE attr_values (
  id INTEGER PRIMARY KEY,
  value BLOB NOT NULL UNIQUE
);

CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;

CREATE TABLE forward_destinations (
  -- the destination's URL (shared/forward-settings.ts destinationKey)
  destination TEXT PRIMARY KEY,
  -- the outbox rows up to this id were delivered (or dropped, and counted)
  through_id INTEGER NOT NULL,
  -- records delivered, failed attempts that were retried, records dropped (refused by the
  -- upstream, or trimmed by retention before they were delivered)
  sent INTEGER NOT NULL DEFAULT 0,
  retried INTEGER NOT NULL DEFAULT 0,
  dropped INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE forward_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- traces, logs or metrics
  signal TEXT NOT NULL,
  -- the request body as received, inflated: 0 OTLP/protobuf, 1 OTLP/JSON
  format INTEGER NOT NULL,
  -- the records (spans, log records, data points) the request holds, and the running total of
  -- records appended, this row's included: a destination's lag is two lookups by id, not a scan
  records INTEGER NOT NULL,
  records_total INTEGER NOT NULL,
  received_ns INTEGER NOT NULL,
  body BLOB NOT NULL
);

CREATE TABLE log_hashed_postings (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the hash of the blob's first entry: a blob holds hashes from it to the next blob's
  first_hash INTEGER NOT NULL,
  -- 6 bytes an entry, sorted: the 32-bit FNV-1a hash of the value's index text, then the
  -- row's id less the bucket's first, big-endian
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_hash)
) WITHOUT ROWID;

CREATE TABLE log_pending_hashes (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the first row of the commit's rows the blob holds
  first_row INTEGER NOT NULL,
  -- as in the hashed postings: (value hash, row place) pairs, sorted
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_row)
) WITHOUT ROWID;

CREATE TABLE "log_postings" (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  first_row INTEGER NOT NULL,
  last_row INTEGER NOT NULL,
  -- the row ids after first_row, each as its difference from the one before, in unsigned
  -- varints (7 bits a byte, low bits first); empty for an entry of one row
  rows BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, value, first_row)
) WITHOUT ROWID;

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

CREATE TABLE "logs" (
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
);

CREATE INDEX logs_by_trace ON logs (id >> 12, substr(trace_id, 13, 4)) WHERE trace_id IS NOT NULL;

CREATE UNIQUE INDEX logs_by_ts ON logs (ts_ns, substr(hash, 1, 8));

CREATE UNIQUE INDEX logs_timeless_by_hash ON logs (hash) WHERE time_ns = 0 AND observed_offset_ns IS NULL;

CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns) WHERE severity_number >= 13;

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE metric_point_journal (
  id INTEGER PRIMARY KEY,
  -- the request's in-order points, packed (metric-point-journal.ts)
  points BLOB NOT NULL
);

CREATE TABLE metric_points (
  series_id INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  flags INTEGER NOT NULL,
  -- gauge and sum
  value REAL,
  -- histogram, exponential histogram, summary
  count INTEGER,
  sum REAL,
  min REAL,
  max REAL,
  -- bucket bounds and counts, exponential buckets, or quantiles (metric-point-detail.ts)
  detail BLOB,
  exemplars TEXT,
  PRIMARY KEY (series_id, time_ns)
) WITHOUT ROWID;

CREATE TABLE metric_rollups (
  metric_id INTEGER NOT NULL,
  -- seconds per slot (metric-slots.ts), and the slot: the point time divided by it
  width_s INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  series_id INTEGER NOT NULL,
  points INTEGER NOT NULL,
  first_ns INTEGER NOT NULL,
  last_ns INTEGER NOT NULL,
  -- gauge values (and sum values) in the slot
  value_sum REAL,
  value_min REAL,
  value_max REAL,
  value_last REAL,
  -- sum: the counter's increase (cumulative: from the point before, resets restarting at 0; delta: the sum);
  -- histogram family and summary: the count's increase
  increase REAL,
  -- histogram family and summary: the sum's increase
  sum_increase REAL,
  resets INTEGER NOT NULL,
  -- histogram family: the buckets' increases (metric-point-detail.ts)
  buckets BLOB,
  -- JSON array of up to a few exemplars' trace ids
  exemplars TEXT,
  PRIMARY KEY (metric_id, width_s, slot, series_id)
) WITHOUT ROWID;

CREATE TABLE "metric_series" (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  metric_id INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  -- hash of the point attributes: with the three ids above, the series' identity
  attr_hash BLOB NOT NULL,
  attributes TEXT NOT NULL,
  first_ns INTEGER NOT NULL,
  first_whole INTEGER NOT NULL,
  UNIQUE (metric_id, resource_id, scope_id, attr_hash)
);

CREATE INDEX metric_series_by_first ON metric_series (first_ns);

CREATE INDEX metric_series_by_service ON metric_series (service_id, metric_id);

CREATE TABLE metric_series_attributes (
  metric_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  series_id INTEGER NOT NULL,
  PRIMARY KEY (metric_id, key_id, value, series_id)
) WITHOUT ROWID;

CREATE TABLE metric_series_last (
  series_id INTEGER PRIMARY KEY,
  -- the time of the series' newest point
  last_ns INTEGER NOT NULL
);

CREATE TABLE metric_slot_packs (
  id INTEGER PRIMARY KEY,
  metric_id INTEGER NOT NULL,
  width_s INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  -- every series' metric_rollups row of this metric, width and slot, one value per series in
  -- each column, series in id order (metric-slot-packs.ts); a column every value of which is
  -- NULL (resets: 0) is NULL
  series_ids BLOB NOT NULL,
  points BLOB NOT NULL,
  first_ns BLOB NOT NULL,
  last_ns BLOB NOT NULL,
  value_sum BLOB,
  value_min BLOB,
  value_max BLOB,
  value_last BLOB,
  increase BLOB,
  sum_increase BLOB,
  resets BLOB,
  -- each series' buckets text, and its exemplars text; NULL when no series has one
  buckets BLOB,
  exemplars BLOB,
  UNIQUE (metric_id, width_s, slot)
);

CREATE TABLE "metrics" (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  -- gauge, sum, histogram, exponential_histogram, summary
  kind TEXT NOT NULL,
  unit TEXT NOT NULL,
  -- 0 unspecified (gauge, summary), 1 delta, 2 cumulative
  temporality INTEGER NOT NULL,
  monotonic INTEGER NOT NULL,
  -- the latest description and metadata sent
  description TEXT NOT NULL,
  metadata TEXT,
  UNIQUE (name, kind, unit, temporality, monotonic)
);

CREATE TABLE "orphan_spans" (
  trace_id BLOB NOT NULL,
  span_id BLOB NOT NULL,
  parent_span_id BLOB NOT NULL,
  start_ns INTEGER NOT NULL,
  PRIMARY KEY (trace_id, span_id)
) WITHOUT ROWID;

CREATE INDEX orphan_spans_by_start ON orphan_spans (start_ns);

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

CREATE TABLE services (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  first_seen_ns INTEGER NOT NULL,
  last_seen_ns INTEGER NOT NULL
);

CREATE TABLE span_hashed_postings (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the hash of the blob's first entry: a blob holds hashes from it to the next blob's
  first_hash INTEGER NOT NULL,
  -- 6 bytes an entry, sorted: the 32-bit FNV-1a hash of the value's index text, then the
  -- row's id less the bucket's first, big-endian
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_hash)
) WITHOUT ROWID;

CREATE TABLE span_names (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE span_pending_hashes (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the first row of the commit's rows the blob holds
  first_row INTEGER NOT NULL,
  -- as in the hashed postings: (value hash, row place) pairs, sorted
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_row)
) WITHOUT ROWID;

CREATE TABLE "span_postings" (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  first_row INTEGER NOT NULL,
  last_row INTEGER NOT NULL,
  -- the row ids after first_row, each as its difference from the one before, in unsigned
  -- varints (7 bits a byte, low bits first); empty for an entry of one row
  rows BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, value, first_row)
) WITHOUT ROWID;

CREATE TABLE "span_rollups" (
  width INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  spans INTEGER NOT NULL,
  newest_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  histogram BLOB NOT NULL,
  slowest BLOB NOT NULL
);

CREATE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name);

CREATE TABLE "spans" (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  -- ids are their bytes, 8 for a span id (stored-ids.ts)
  span_id BLOB NOT NULL,
  parent_span_id BLOB,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  -- span_names.id; NULL when the name is kept in name
  name_id INTEGER,
  -- NULL when the name is named by name_id
  name TEXT,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  -- the end less the start, as sent (negative for an end before the start)
  duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  flags INTEGER NOT NULL,
  -- key ids and values (attribute-coding.ts)
  attributes BLOB NOT NULL,
  -- trace state, events, links, dropped counts: NULL for none, else JSON (stored-span-fields.ts)
  details TEXT
);

CREATE INDEX spans_by_span_id ON spans (id >> 16, substr(span_id, 6, 3));

CREATE INDEX spans_by_start ON spans (start_ns);

CREATE INDEX spans_by_trace ON spans (trace_key, substr(span_id, 7, 2));

CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;

CREATE TABLE "trace_services" (
  trace_key INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  PRIMARY KEY (trace_key, service_id)
) WITHOUT ROWID;

CREATE TABLE "traces" (
  trace_key INTEGER PRIMARY KEY,
  -- 16 bytes (stored-ids.ts)
  trace_id BLOB NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id BLOB,
  root_service_id INTEGER,
  -- span_names.id; NULL when the name is kept in root_name (or there is no root yet)
  root_name_id INTEGER,
  root_name TEXT
);

CREATE UNIQUE INDEX traces_by_id ON traces (trace_id);

CREATE INDEX traces_by_root ON traces (root_service_id, root_name_id, root_name, start_ns, end_ns, error_count, trace_id);

CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name_id, root_name);
