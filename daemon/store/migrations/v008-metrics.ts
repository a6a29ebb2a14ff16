import type { Migration } from "./shared.js";

// Metrics are read as time series (resource + scope + metric + point attributes) whose points
// arrive every few seconds forever, so the layout is not the spans': a series' identity is kept
// once (metric_series), found by name, service or attribute without touching points
// (metric_series_attributes); a point is a short row clustered by series and time, unique on
// both, so a resent point is stored once; and windows longer than a few minutes are answered
// from per-series rollups clustered by metric and slot, which SQLite aggregates without
// reading points. docs/metrics-store.md has the alternatives measured.
const V8 = `
CREATE TABLE metrics (
  id INTEGER PRIMARY KEY,
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
CREATE TABLE metric_series (
  id INTEGER PRIMARY KEY,
  metric_id INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  -- hash of the point attributes: with the three ids above, the series' identity
  attr_hash BLOB NOT NULL,
  attributes TEXT NOT NULL,
  first_ns INTEGER NOT NULL,
  last_ns INTEGER NOT NULL,
  -- 1 when a cumulative series' first point counts its whole value (it started at or after
  -- the collector that created the series, metric-rollup.ts firstCountsWhole), 0 when it is
  -- the baseline: rollups and raw-point queries apply the same decision
  first_whole INTEGER NOT NULL,
  UNIQUE (metric_id, resource_id, scope_id, attr_hash)
);
CREATE INDEX metric_series_by_service ON metric_series (service_id, metric_id);
-- retention takes the series with the oldest points first, and the oldest point kept, by it
CREATE INDEX metric_series_by_first ON metric_series (first_ns);
CREATE TABLE metric_series_attributes (
  metric_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  series_id INTEGER NOT NULL,
  PRIMARY KEY (metric_id, key_id, value, series_id)
) WITHOUT ROWID;
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
INSERT OR IGNORE INTO counters (name, value) VALUES ('points', 0), ('series', 0);
`;

export const v008Metrics: Migration = {
  version: 8,
  description: "metrics: identities, series, points and per-series rollups",
  up(db) {
    db.exec(V8);
  },
};
