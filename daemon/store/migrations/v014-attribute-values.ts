import type { Migration } from "./shared.js";

// A span's or log record's attributes kept each value as its JSON text in every row, although
// most keys take a few values over and over (a route, a method, a host, a user). A value of such
// a key is now stored once, here, and rows name it by id (attribute-coding.ts: a value of
// length 0 is followed by its id). Which keys' values come here the writer learns as it writes
// (attribute-values.ts). Values are the JSON text's UTF-8 bytes as a row would hold them. Ids
// are never reused or renumbered and rows are never deleted (retention does not trim it; the
// writer bounds its growth), so a reader may keep a copy.
// Nothing is copied: rows written before keep their values inline, which stays valid.
const V14 = `
CREATE TABLE attr_values (
  id INTEGER PRIMARY KEY,
  value BLOB NOT NULL UNIQUE
);
`;

export const v014AttributeValues: Migration = {
  version: 14,
  description: "attribute values that repeat are stored once, in a dictionary",
  up(db) {
    db.exec(V14);
  },
};
