import type Database from "better-sqlite3";
import type { Migration } from "./shared.js";

// Metric and series ids were INTEGER PRIMARY KEY, so a new one took the largest id plus one,
// the id of the newest one retention had just deleted. Its rollup slots after the cutoff stay
// until they pass it (metric-retention.ts), and a new series under its id answered with them.
// Both tables now keep their ids growing (AUTOINCREMENT), from past every id a rollup row still
// names; rows of metrics that no longer exist (left by the retention before this version) go.
const METRICS = `
CREATE TABLE metrics_v15 (
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
INSERT INTO metrics_v15 SELECT id, name, kind, unit, temporality, monotonic, description, metadata
  FROM metrics ORDER BY id;
`;

const SERIES = `
CREATE TABLE metric_series_v15 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO metric_series_v15 SELECT id, metric_id, service_id, resource_id, scope_id, attr_hash, attributes,
  first_ns, last_ns, first_whole FROM metric_series ORDER BY id;
`;

const SERIES_INDEXES = `
CREATE INDEX metric_series_by_first ON metric_series (first_ns);
CREATE INDEX metric_series_by_service ON metric_series (service_id, metric_id);
`;

/** Replaces `table` with its copy `copied`, whose ids then grow from past `largest`. */
function replaceWithSequence(db: Database.Database, table: string, copy: string, copied: string, largest: bigint) {
  db.exec(copy);
  db.exec(`DROP TABLE ${table}; ALTER TABLE ${copied} RENAME TO ${table};`);
  db.prepare("DELETE FROM sqlite_sequence WHERE name = ?").run(table);
  db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table, largest);
}

export const v015MetricIdsNotReused: Migration = {
  version: 15,
  description: "metric and series ids are never reused",
  rewrites: ["metrics", "metric_series"],
  up(db) {
    db.exec(`DELETE FROM metric_rollups WHERE metric_id NOT IN (SELECT id FROM metrics);
      DELETE FROM metric_slot_packs WHERE metric_id NOT IN (SELECT id FROM metrics);`);
    const largest = (sql: string) => BigInt((db.prepare(sql).pluck().safeIntegers(true).get() as bigint | null) ?? 0n);
    const metricIds = largest("SELECT max(id) FROM metrics");
    // A deleted series' rows after the cutoff name its id until they pass it (packs name only
    // series whose rows of the same slot exist).
    const seriesIds = [
      largest("SELECT max(id) FROM metric_series"),
      largest("SELECT max(series_id) FROM metric_rollups"),
    ].reduce((a, b) => (a > b ? a : b));
    replaceWithSequence(db, "metrics", METRICS, "metrics_v15", metricIds);
    replaceWithSequence(db, "metric_series", SERIES, "metric_series_v15", seriesIds);
    db.exec(SERIES_INDEXES);
  },
};
