import type { Migration } from "./shared.js";

// Span rollups are appended per commit and merged every few commits (rollup-buffer.ts), so an
// operation's slot may hold several rows.
const V4 = `
DROP INDEX span_rollups_by_slot;
CREATE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name);
`;

export const v004AppendedSpanRollups: Migration = {
  version: 4,
  description: "span rollups appended per commit and merged every few commits, instead of rewritten by each",
  up(db) {
    db.exec(V4);
  },
};
