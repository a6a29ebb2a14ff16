import type { Migration } from "./shared.js";

// Forwarding (daemon/forward/): every accepted request is kept in an outbox, written in the
// same transaction as its records, so what was acknowledged can always still be sent upstream,
// after an upstream outage or a crash. Each destination keeps how far it has delivered; rows
// every destination has passed are deleted. AUTOINCREMENT, so an id is never handed out twice
// (a destination's position stays true when the table was emptied).
const V9 = `
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
`;

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

export const v009ForwardOutbox: Migration = {
  version: 9,
  description:
    "forwarding: the outbox of accepted requests and each destination's position; rollup trust bounds recorded",
  up(db) {
    db.exec(V9);
    db.exec(RECORD_OLDEST);
  },
};
