import type Database from "better-sqlite3";
import { POSTING_BUCKET_ROWS } from "./posting-bucket.js";

/**
 * Hashed postings (schema version 17): the postings of an attribute key whose values do not
 * repeat (a request id, a payload size), for one full posting bucket, kept as a few blobs
 * instead of a b-tree entry per row with the value written out in each.
 *
 * A blob holds entries of HASHED_ENTRY_BYTES: the 32-bit FNV-1a hash of the value's index text
 * (the bytes SQLite keeps for it), then the row's place in its bucket (row id less the bucket's
 * first id), both big-endian, sorted by hash, then place. A bucket's entries of one key are cut, in that
 * order, into blobs of about HASHED_CHUNK_ENTRIES, each stored under its first entry's hash
 * (`first_hash`), so a lookup reads the one blob whose range holds the hash: one seek per
 * bucket, then a binary search. Entries of one hash are never cut apart.
 *
 * Keys the packer has hashed are then written in this form by the writer as it stores their
 * rows, a blob per commit and bucket (the `*_pending_hashes` tables, one blob sorted by hash),
 * until the packer merges a full bucket's into its blobs (posting-packer.ts, postings.ts).
 *
 * A hash names a value only probably: a reader checks every row it finds against the row's
 * own attribute (sqlite-reader.ts). The measurements that chose this form are in
 * docs/store-density.md.
 */

export const HASHED_ENTRY_BYTES = 6;
/**
 * Entries per blob: 768 bytes, well within what a 16 KiB page keeps in the b-tree itself. A
 * blob too large for that spills into an overflow page of its own, mostly empty.
 */
export const HASHED_CHUNK_ENTRIES = 128;
/**
 * Rows of a key a bucket must hold before the key is hashed there: a key seen a few times
 * says nothing yet about whether its values repeat, and its entries cost little.
 */
export const MIN_HASHED_ROWS = HASHED_CHUNK_ENTRIES;

/**
 * The hash hashed postings keep of a value's index text: FNV-1a of the bytes SQLite keeps for
 * it (the packer hashes those, as stored), encoded as it goes so that the writer and readers
 * need no Buffer per value. better-sqlite3 hands SQLite UTF-8, a lone surrogate as its own
 * three bytes (not U+FFFD), and so does this.
 */
export function valueHash(value: string): number {
  let hash = 0x811c9dc5;
  const byte = (b: number) => {
    hash = Math.imul(hash ^ b, 0x01000193);
  };
  for (let i = 0; i < value.length; i++) {
    let code = value.charCodeAt(i);
    if (code < 0x80) {
      hash = Math.imul(hash ^ code, 0x01000193);
      continue;
    }
    if (code < 0x800) {
      byte(0xc0 | (code >> 6));
      byte(0x80 | (code & 0x3f));
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < value.length ? value.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
        byte(0xf0 | (code >> 18));
        byte(0x80 | ((code >> 12) & 0x3f));
        byte(0x80 | ((code >> 6) & 0x3f));
        byte(0x80 | (code & 0x3f));
        continue;
      }
    }
    byte(0xe0 | (code >> 12));
    byte(0x80 | ((code >> 6) & 0x3f));
    byte(0x80 | (code & 0x3f));
  }
  return hash >>> 0;
}

/**
 * One entry as a number that sorts as the entries do (hash, then place): both fit a double
 * exactly (32 + 13 bits), so a bucket's entries sort as a Float64Array, natively.
 */
export function hashedEntry(hash: number, place: number): number {
  if (!(place >= 0 && place < POSTING_BUCKET_ROWS)) throw new RangeError(`a row place outside its bucket: ${place}`);
  return hash * POSTING_BUCKET_ROWS + place;
}

export interface HashedChunk {
  firstHash: number;
  entries: Buffer;
}

/** The blob of `entries` (hashedEntry's numbers, already sorted). */
function blobOf(entries: Float64Array): Buffer {
  const blob = Buffer.allocUnsafe(entries.length * HASHED_ENTRY_BYTES);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as number;
    blob.writeUInt32BE(Math.floor(entry / POSTING_BUCKET_ROWS), i * HASHED_ENTRY_BYTES);
    blob.writeUInt16BE(entry % POSTING_BUCKET_ROWS, i * HASHED_ENTRY_BYTES + 4);
  }
  return blob;
}

/** One blob of `entries`, sorted (sorts them): a commit's rows of a key written hashed. */
export function hashedBlob(entries: Float64Array): Buffer {
  return blobOf(entries.sort());
}

/** The entries of blobs, as hashedEntry's numbers, in the blobs' order. */
export function entriesOf(blobs: readonly Uint8Array[]): Float64Array {
  let count = 0;
  for (const blob of blobs) count += entryCount(blob);
  const entries = new Float64Array(count);
  let n = 0;
  for (const blob of blobs) {
    const data = view(blob);
    for (let i = 0; i < blob.length; i += HASHED_ENTRY_BYTES) {
      entries[n++] = data.getUint32(i) * POSTING_BUCKET_ROWS + data.getUint16(i + 4);
    }
  }
  return entries;
}

/** How many distinct hashes sorted entries hold. */
export function distinctHashes(sorted: Float64Array): number {
  let distinct = 0;
  let previous = -1;
  for (const entry of sorted) {
    const hash = Math.floor(entry / POSTING_BUCKET_ROWS);
    if (hash !== previous) distinct++;
    previous = hash;
  }
  return distinct;
}

/** The blobs of one bucket's entries of one key, each made by hashedEntry (sorts `entries`). */
export function hashedChunks(entries: Float64Array): HashedChunk[] {
  entries.sort();
  const hashOf = (i: number) => Math.floor((entries[i] as number) / POSTING_BUCKET_ROWS);
  const chunks: HashedChunk[] = [];
  for (let start = 0; start < entries.length; ) {
    let end = Math.min(start + HASHED_CHUNK_ENTRIES, entries.length);
    // A lookup reads one blob: a hash's entries stay together, however many there are.
    while (end < entries.length && hashOf(end) === hashOf(end - 1)) end++;
    chunks.push({ firstHash: hashOf(start), entries: blobOf(entries.subarray(start, end)) });
    start = end;
  }
  return chunks;
}

/**
 * The attribute keys whose postings the writer writes hashed as it stores their rows, per
 * postings table: keys the packer hashed in a bucket it packed, until the rows the writer
 * wrote hashed turn out to repeat (posting-packer.ts). Shared by the writer of each signal's
 * records, which reads it, and the packer, which changes it in `meta` (hashedKeysMetaKey) in
 * its transactions and here once they commit, between the writer's transactions. A new
 * process reads them from `meta`.
 */
export class HashedKeys {
  private readonly sets = new Map<string, Set<number>>();
  private readonly stored: Database.Statement;

  constructor(db: Database.Database) {
    this.stored = db.prepare("SELECT value FROM meta WHERE key = ?").pluck();
  }

  /** The keys of the postings table `postings` (`span_postings`) written hashed. */
  of(postings: string): Set<number> {
    let keys = this.sets.get(postings);
    if (keys === undefined) {
      keys = keyListOf(this.stored.get(hashedKeysMetaKey(postings)) as string | undefined);
      this.sets.set(postings, keys);
    }
    return keys;
  }
}

/** The `meta` row holding, as a JSON array, the keys of `postings` written hashed. */
export function hashedKeysMetaKey(postings: string): string {
  return `${postings}_hashed_keys`;
}

/**
 * The `meta` row holding, as a JSON array, every key of `postings` that has hashed postings or
 * pending blobs anywhere, or had (it only grows): readers look for any other key's rows in its
 * entries alone, without a seek per bucket in the hashed forms.
 */
export function everHashedMetaKey(postings: string): string {
  return `${postings}_ever_hashed`;
}

/** The keys of `postings` that may have hashed postings (everHashedMetaKey). */
export function everHashedKeys(db: Database.Database, postings: string): Set<number> {
  return keyListOf(
    db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(everHashedMetaKey(postings)) as string | undefined,
  );
}

/** A list of key ids as `meta` keeps it (a JSON array, ascending), and back. */
export function keyListOf(stored: string | undefined): Set<number> {
  return new Set(stored === undefined ? [] : (JSON.parse(stored) as number[]));
}
export function keyListText(keys: Iterable<number>): string {
  return JSON.stringify([...keys].sort((a, b) => a - b));
}

function entryCount(blob: Uint8Array): number {
  if (blob.length % HASHED_ENTRY_BYTES !== 0) throw new RangeError("a hashed postings blob of a partial entry");
  return blob.length / HASHED_ENTRY_BYTES;
}

function view(blob: Uint8Array): DataView {
  return new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
}

/** The ids of the rows of bucket `bucket` whose value hashes to `hash`, ascending. */
export function hashedRows(blob: Uint8Array, bucket: number, hash: number): number[] {
  const count = entryCount(blob);
  const data = view(blob);
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (data.getUint32(mid * HASHED_ENTRY_BYTES) < hash) lo = mid + 1;
    else hi = mid;
  }
  const first = bucket * POSTING_BUCKET_ROWS;
  const rows: number[] = [];
  for (let i = lo; i < count && data.getUint32(i * HASHED_ENTRY_BYTES) === hash; i++) {
    rows.push(first + data.getUint16(i * HASHED_ENTRY_BYTES + 4));
  }
  return rows;
}

/** Calls `each` with the id of every row in a blob of bucket `bucket` (in hash order). */
export function forEachHashedRow(blob: Uint8Array, bucket: number, each: (id: number) => void): void {
  const count = entryCount(blob);
  const data = view(blob);
  const first = bucket * POSTING_BUCKET_ROWS;
  for (let i = 0; i < count; i++) each(first + data.getUint16(i * HASHED_ENTRY_BYTES + 4));
}

/**
 * Defines, on a reading connection:
 * - obs_hashed_rows(entries, bucket, hash): the ids of the rows whose value hashes to `hash`,
 *   as a JSON array for `json_each` (an empty one for a NULL blob: no blob of that range);
 * - obs_hashed_all(entries, bucket): every row id of a blob, as a JSON array;
 * - obs_hashed_count(entries, bucket, a, b): how many of its rows have ids in [a, b].
 */
export function registerHashedPostingFunctions(db: Database.Database): void {
  const options = { deterministic: true, safeIntegers: false } as const;
  db.function("obs_hashed_rows", options, (entries: unknown, bucket: unknown, hash: unknown) =>
    entries instanceof Uint8Array ? `[${hashedRows(entries, Number(bucket), Number(hash)).join(",")}]` : "[]",
  );
  db.function("obs_hashed_all", options, (entries: unknown, bucket: unknown) => {
    if (!(entries instanceof Uint8Array)) return "[]";
    const rows: number[] = [];
    forEachHashedRow(entries, Number(bucket), (id) => rows.push(id));
    return `[${rows.join(",")}]`;
  });
  db.function("obs_hashed_count", options, (entries: unknown, bucket: unknown, a: unknown, b: unknown) => {
    if (!(entries instanceof Uint8Array)) return 0;
    const [from, to] = [Number(a), Number(b)];
    let count = 0;
    forEachHashedRow(entries, Number(bucket), (id) => {
      if (id >= from && id <= to) count++;
    });
    return count;
  });
}
