import type { Migration } from "./shared.js";

// Every commit moves the newest time of every series it wrote a point of. In metric_series that
// rewrote the series' whole row (its attributes' JSON included) and every page holding one, most
// of the write-ahead log a commit of metric points wrote after the points themselves. The newest
// times now have a table of their own, a few bytes a series, read through a join by the queries
// that filter or order series by it (docs/metrics-store.md). Every series has its row: the
// writer adds it with the series, retention deletes it with the series.
//
// DROP COLUMN also takes out of the table's stored SQL the comment that followed the column,
// first_whole's: 1 when a cumulative series' first point counts its whole value (it started at
// or after the collector that created the series, metric-rollup.ts firstCountsWhole), 0 when it
// is the baseline; rollups and raw-point queries apply the same decision.
const UP = `
CREATE TABLE metric_series_last (
  series_id INTEGER PRIMARY KEY,
  -- the time of the series' newest point
  last_ns INTEGER NOT NULL
);
INSERT INTO metric_series_last (series_id, last_ns) SELECT id, last_ns FROM metric_series ORDER BY id;
ALTER TABLE metric_series DROP COLUMN last_ns;
`;

export const v023SeriesLastTimes: Migration = {
  version: 23,
  description: "a metric series' newest time is kept in a narrow table of its own",
  rewrites: ["metric_series"],
  up(db) {
    db.exec(UP);
  },
};
