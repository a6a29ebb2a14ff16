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

export const v009ForwardOutbox: Migration = {
  version: 9,
  description: "forwarding: the outbox of accepted requests and each destination's position",
  up(db) {
    db.exec(V9);
  },
};
