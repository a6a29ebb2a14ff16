import type { Migration } from "./shared.js";

// Rollup readers trusted a minute or hour slot only after the `*_trimmed_through_ns` counter and
// after the oldest stored row, because a store trimmed before that counter existed cannot tell
// what it deleted. Recording that bound once, here, as the counter of every store that holds
// rows lets readers go by the counter alone: a store this version creates trusts its slots from
// its first minute, where it read its first minutes row by row (a health call on a store under
// two minutes old read every span of the last minute).
const RECORD_OLDEST = `
INSERT INTO counters (name, value)
  SELECT 'spans_trimmed_through_ns', v FROM (SELECT min(start_ns) AS v FROM spans) WHERE v IS NOT NULL
  ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value);
INSERT INTO counters (name, value)
  SELECT 'logs_trimmed_through_ns', v FROM (SELECT min(ts_ns) AS v FROM logs) WHERE v IS NOT NULL
  ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value);
`;

export const v010RollupTrustBounds: Migration = {
  version: 10,
  description: "rollups: a store's oldest span and log times recorded as what retention may have trimmed",
  up(db) {
    db.exec(RECORD_OLDEST);
  },
};
