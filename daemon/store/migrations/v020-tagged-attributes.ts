import type { Migration } from "./shared.js";

// A span's or log record's attributes are written in a denser layout from this version on
// (attribute-coding.ts): one tag per attribute gives the value's kind and whether its key is the
// one after the key before, a string is kept without its quotes and a plain integer as a varint. Readers
// tell the two layouts apart by the blob's first byte, so rows written before are read as they
// are and nothing is copied; the version is raised so that an older obs, which cannot read the
// new layout, refuses the file instead of failing on its rows.
export const v020TaggedAttributes: Migration = {
  version: 20,
  description: "attributes are written with one tag per value: its kind, and its key when not the next",
  up() {},
};
