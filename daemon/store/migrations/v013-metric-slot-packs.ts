import type { Migration } from "./shared.js";

// A day's metric view read one `metric_rollups` row per series and 15-minute slot, and the
// rows' reading was most of the query. A closed slot of a width is now also kept packed: one
// row per metric and slot holding every series' row of it, a BLOB per column
// (metric-slot-packs.ts). The rows stay as they are. Nothing is copied here: the writer packs
// a metric's closed slots, oldest first, a few per commit, as its points arrive; until then,
// and for a metric that never reports again, readers read the rows, as before.
// A rowid table: a pack is tens of kilobytes, and a WITHOUT ROWID table keeps rows that large
// in its index b-tree, rebalanced on every rewrite (design-decisions.md, "Rollups in a rowid table").
const V13 = `
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
`;

export const v013MetricSlotPacks: Migration = {
  version: 13,
  description: "closed metric rollup slots are also kept packed, one row per metric and slot",
  up(db) {
    db.exec(V13);
  },
};
