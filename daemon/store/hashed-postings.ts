import type Database from "better-sqlite3";
import { fnv1a32 } from "./fnv.js";
import { POSTING_BUCKET_ROWS } from "./postings.js";

/**
 * Hashed postings (schema version 17): the postings of an attribute key whose values do not
 * repeat (a request id, a payload size), for one full posting bucket, kept as a few blobs
 * instead of a b-tree entry per row with the value written out in each.
 *
 * A blob holds entries of HASHED_ENTRY_BYTES: the 32-bit FNV-1a hash of the value's index text
 * (its UTF-8 bytes), then the row's place in its bucket (row id less the bucket's first id),
 * both big-endian, sorted by hash, then place. A bucket's entries of one key are cut, in that
 * order, into blobs of about HASHED_CHUNK_ENTRIES, each stored under its first entry's hash
 * (`first_hash`), so a lookup reads the one blob whose range holds the hash: one seek per
 * bucket, then a binary search. Entries of one hash are never cut apart.
 *
 * A hash names a value only probably: a reader checks every row it finds against the row's
 * own attribute (sqlite-reader.ts). The measurements that chose this form are in
 * docs/store-density.md.
 */

export const HASHED_ENTRY_BYTES = 6;
/**
 * Entries per blob: 768 bytes, well within what a 16 KiB page keeps in the b-tree itself. A
 * blob too large for that spills into an overflow page of its own, mostly empty, which cost a
 * blob per commit half its savings when it was measured.
 */
export const HASHED_CHUNK_ENTRIES = 128;

/** The hash hashed postings keep of a value's index text. */
export function valueHash(value: string): number {
  return fnv1a32(Buffer.from(value, "utf8"));
}

export interface HashedEntry {
  hash: number;
  /** The row's id less its bucket's first id. */
  place: number;
}

export interface HashedChunk {
  firstHash: number;
  entries: Buffer;
}

/** The blobs of one bucket's entries of one key (sorts `entries`). */
export function hashedChunks(entries: HashedEntry[]): HashedChunk[] {
  entries.sort((a, b) => a.hash - b.hash || a.place - b.place);
  const chunks: HashedChunk[] = [];
  for (let start = 0; start < entries.length; ) {
    let end = Math.min(start + HASHED_CHUNK_ENTRIES, entries.length);
    // A lookup reads one blob: a hash's entries stay together, however many there are.
    while (end < entries.length && (entries[end] as HashedEntry).hash === (entries[end - 1] as HashedEntry).hash) end++;
    const blob = Buffer.allocUnsafe((end - start) * HASHED_ENTRY_BYTES);
    for (let i = start; i < end; i++) {
      const { hash, place } = entries[i] as HashedEntry;
      if (!(place >= 0 && place < POSTING_BUCKET_ROWS))
        throw new RangeError(`a row place outside its bucket: ${place}`);
      blob.writeUInt32BE(hash, (i - start) * HASHED_ENTRY_BYTES);
      blob.writeUInt16BE(place, (i - start) * HASHED_ENTRY_BYTES + 4);
    }
    chunks.push({ firstHash: (entries[start] as HashedEntry).hash, entries: blob });
    start = end;
  }
  return chunks;
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
