import type { Migration } from "./shared.js";

// The metric writer holds each series' points of its open minute and writes them to
// metric_points with the minute's rollup row: a series' newest points share a page with its
// older ones, so writing them every commit rewrote a page per series per commit, which made a
// store that has run an hour take a quarter of an empty one's ingest (docs/metrics-store.md).
// Until then they are in this journal, appended in the transaction that acknowledges them (one
// row a request, metric-point-journal.ts), which a writer replays after a stop that lost
// what it held, and trims once every point of a row is in metric_points.
const UP = `
CREATE TABLE metric_point_journal (
  id INTEGER PRIMARY KEY,
  -- the request's in-order points, packed (metric-point-journal.ts)
  points BLOB NOT NULL
);
`;

export const v024MetricPointJournal: Migration = {
  version: 24,
  description: "metric points held with their minute are journaled until written",
  up(db) {
    db.exec(UP);
  },
};
