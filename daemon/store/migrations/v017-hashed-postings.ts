import type { Migration } from "./shared.js";

// An attribute key whose values do not repeat (a request id) cost a postings entry per row, its
// value written out in each: about 44 bytes a span and 23 a log record on the benchmarks'
// data (docs/store-density.md). From this version such a key's postings of a full posting
// bucket are a few blobs of (value hash, row place) pairs (hashed-postings.ts,
// posting-packer.ts); once the packer has found a key so, the writer writes its rows' pairs as
// it stores them, a blob per commit, pending until their bucket is full and merged. Readers
// look in all three forms. Existing entries stay as they are until the writer packs their
// buckets, a bucket at a time, after the upgrade.
const hashedPostingsTable = (name: string) => `CREATE TABLE ${name} (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the hash of the blob's first entry: a blob holds hashes from it to the next blob's
  first_hash INTEGER NOT NULL,
  -- 6 bytes an entry, sorted: the 32-bit FNV-1a hash of the value's index text, then the
  -- row's id less the bucket's first, big-endian
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_hash)
) WITHOUT ROWID;`;

const pendingHashesTable = (name: string) => `CREATE TABLE ${name} (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  -- the first row of the commit's rows the blob holds
  first_row INTEGER NOT NULL,
  -- as in the hashed postings: (value hash, row place) pairs, sorted
  entries BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, first_row)
) WITHOUT ROWID;`;

export const v017HashedPostings: Migration = {
  version: 17,
  description: "postings of keys whose values do not repeat kept as hashed blobs per bucket",
  up(db) {
    db.exec(hashedPostingsTable("span_hashed_postings"));
    db.exec(hashedPostingsTable("log_hashed_postings"));
    db.exec(pendingHashesTable("span_pending_hashes"));
    db.exec(pendingHashesTable("log_pending_hashes"));
  },
};
