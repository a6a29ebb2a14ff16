import type Database from "better-sqlite3";
import { SIGNALS } from "../signals/registry.js";
import { fnv1a32 } from "./fnv.js";
import {
  distinctHashes,
  entriesOf,
  everHashedMetaKey,
  HashedKeys,
  hashedChunks,
  hashedEntry,
  hashedKeysMetaKey,
  keyListOf,
  keyListText,
  MIN_HASHED_ROWS,
} from "./hashed-postings.js";
import { POSTING_BUCKET_ROWS, postingBucket } from "./posting-bucket.js";
import { decodePostingRows } from "./posting-rows.js";

/**
 * A key is hashed in a bucket when it has at least this many distinct values per row there: its
 * values do not repeat, so its entries are one row each and the value text is most of their
 * bytes. A key whose values repeat keeps its entries: one entry lists many rows, and the facet
 * of its values is read from them.
 */
export const UNIQUE_SHARE = 0.8;

/** The tables of one signal's postings. */
export interface PostingTables {
  /** The records' table, with an INTEGER AUTOINCREMENT `id`. */
  readonly records: string;
  readonly postings: string;
  readonly hashed: string;
  /** Blobs the writer wrote for keys in HashedKeys, a commit each, until their bucket is packed. */
  readonly pending: string;
}

/** Every signal's that has postings (the signal registry). */
function signalTables(): PostingTables[] {
  return SIGNALS.flatMap(({ retention }) =>
    "postingsTable" in retention
      ? [
          {
            records: retention.table,
            postings: retention.postingsTable,
            hashed: retention.hashedPostingsTable,
            pending: retention.pendingHashesTable,
          },
        ]
      : [],
  );
}

interface KeyStats {
  key_id: number;
  entries: number;
  singles: number;
  lo: number;
  hi: number;
}

class SignalPacker {
  private readonly marker: string;
  private readonly stmt: Record<
    | "meta"
    | "setMeta"
    | "lowest"
    | "sequence"
    | "stats"
    | "entries"
    | "insert"
    | "drop"
    | "pendingKeys"
    | "pending"
    | "dropPending",
    Database.Statement
  >;

  /** The keys the writer writes hashed (HashedKeys), changed once a transaction committed. */
  private readonly keys: Set<number>;
  private readonly keysMetaKey: string;
  private readonly everMetaKey: string;

  constructor(
    private readonly db: Database.Database,
    tables: PostingTables,
    hashedKeys: HashedKeys,
  ) {
    this.marker = `${tables.postings}_packed_below`;
    this.keys = hashedKeys.of(tables.postings);
    this.keysMetaKey = hashedKeysMetaKey(tables.postings);
    this.everMetaKey = everHashedMetaKey(tables.postings);
    // Readers read the hashed forms of the keys listed only: a store whose hashed tables have
    // blobs but no list (written before the list existed) gets one from the blobs themselves.
    db.prepare(
      `INSERT OR IGNORE INTO meta (key, value)
       SELECT ?, json_group_array(key_id) FROM (
         SELECT key_id FROM ${tables.hashed} UNION SELECT key_id FROM ${tables.pending} ORDER BY 1)
       HAVING count(*) > 0`,
    ).run(this.everMetaKey);
    const { postings, hashed, records, pending } = tables;
    this.stmt = {
      meta: db.prepare("SELECT value FROM meta WHERE key = ?").pluck(),
      setMeta: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
      lowest: db.prepare(`SELECT min(id) FROM ${records}`).pluck(),
      sequence: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck(),
      stats: db.prepare(
        `SELECT key_id, count(*) AS entries, sum(length(rows) = 0) AS singles, min(first_row) AS lo, max(last_row) AS hi
         FROM ${postings} WHERE bucket = ? GROUP BY key_id`,
      ),
      // An entry of one row has an empty blob: NULL, so that no Buffer is made for it.
      entries: db
        .prepare(
          `SELECT CAST(value AS BLOB), first_row, nullif(rows, x'') FROM ${postings}
           WHERE bucket = ? AND key_id = ? ORDER BY value, first_row`,
        )
        .raw(),
      insert: db.prepare(`INSERT INTO ${hashed} (bucket, key_id, first_hash, entries) VALUES (?, ?, ?, ?)`),
      drop: db.prepare(`DELETE FROM ${postings} WHERE bucket = ? AND key_id = ?`),
      pendingKeys: db.prepare(`SELECT DISTINCT key_id FROM ${pending} WHERE bucket = ?`).pluck(),
      pending: db.prepare(`SELECT entries FROM ${pending} WHERE bucket = ? AND key_id = ?`).pluck(),
      dropPending: db.prepare(`DELETE FROM ${pending} WHERE bucket = ? AND key_id = ?`),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
    this.stmt.sequence.bind(records);
  }

  /**
   * The oldest bucket to pack: full (the next row id lies past it, and ids only grow) and not
   * yet packed. Null when there is none.
   */
  private nextBucket(): number | null {
    const sequence = this.stmt.sequence.get() as number | undefined;
    if (sequence === undefined) return null;
    const marked = this.stmt.meta.get(this.marker) as string | undefined;
    const lowest = this.stmt.lowest.get() as number | null;
    if (lowest === null) return null;
    // Buckets below the lowest stored row's hold entries of deleted rows only: retention drops them.
    const bucket = Math.max(marked === undefined ? 0 : Number(marked), postingBucket(lowest));
    return bucket < postingBucket(sequence + 1) ? bucket : null;
  }

  /** Packs the oldest full bucket not yet packed, in one transaction; false when there is none. */
  packNext(): boolean {
    let bucket: number | null = null;
    try {
      const keys = this.db.transaction(() => {
        bucket = this.nextBucket();
        if (bucket === null) return null;
        const decided = this.pack(bucket);
        const next = new Set(this.keys);
        for (const keyId of decided.hashed) next.add(keyId);
        for (const keyId of decided.repeating) next.delete(keyId);
        this.stmt.setMeta.run(this.marker, String(bucket + 1));
        this.stmt.setMeta.run(this.keysMetaKey, keyListText(next));
        // A key is written hashed only once the packer hashed it here: that covers pending blobs too.
        const ever = keyListOf(this.stmt.meta.get(this.everMetaKey) as string | undefined);
        if (decided.hashed.some((keyId) => !ever.has(keyId))) {
          for (const keyId of decided.hashed) ever.add(keyId);
          this.stmt.setMeta.run(this.everMetaKey, keyListText(ever));
        }
        return next;
      })();
      if (keys === null) return false;
      // Only once committed: a rolled-back pack decided nothing.
      this.keys.clear();
      for (const keyId of keys) this.keys.add(keyId);
      return true;
    } catch (error) {
      // The transaction rolled back whole: the bucket's postings stay in the forms they were in,
      // all of which readers read, and are never packed; the next try starts past it rather
      // than fail on it again and hold back every bucket after it.
      if (bucket !== null) {
        try {
          this.stmt.setMeta.run(this.marker, String((bucket as number) + 1));
        } catch {}
      }
      throw error;
    }
  }

  /**
   * Packs a bucket: merges the pending blobs of the keys the writer wrote hashed, and hashes the
   * entries of the keys whose values did not repeat. Returns the keys to write hashed from now
   * on, and those whose values repeated after all (written as entries from now on).
   */
  private pack(bucket: number): { hashed: number[]; repeating: number[] } {
    const first = bucket * POSTING_BUCKET_ROWS;
    const decided = { hashed: [] as number[], repeating: [] as number[] };
    const merged = new Set<number>();
    for (const keyId of this.stmt.pendingKeys.all(bucket) as number[]) {
      const entries = entriesOf(this.stmt.pending.all(bucket, keyId) as Buffer[]);
      const chunks = hashedChunks(entries);
      // Its values started repeating: this bucket stays hashed (readers check every row), the
      // next one gets entries, and the packer decides again.
      if (distinctHashes(entries) < entries.length * UNIQUE_SHARE) decided.repeating.push(keyId);
      for (const chunk of chunks) this.stmt.insert.run(bucket, keyId, chunk.firstHash, chunk.entries);
      this.stmt.dropPending.run(bucket, keyId);
      merged.add(keyId);
    }
    for (const key of this.stmt.stats.all(bucket) as KeyStats[]) {
      // Entries of a key merged above were written before it was found not to repeat: they stay.
      if (merged.has(key.key_id)) continue;
      // Distinct values at least UNIQUE_SHARE (4/5) of rows needs single-row entries at least
      // 3/4 of entries: rows >= singles + 2 (entries - singles) and distinct <= entries. Keys
      // that fail it (most whose values repeat) are not read, nor are keys with too few rows
      // (entries >= distinct >= 4/5 of rows).
      if (key.singles < key.entries * 0.75 || key.entries < MIN_HASHED_ROWS * UNIQUE_SHARE) continue;
      // An entry written before entries were cut at bucket ends (postings.ts) may list rows of
      // the next bucket: such a key stays as it is here.
      if (key.lo < first || key.hi >= first + POSTING_BUCKET_ROWS) continue;
      const entries = this.hashedEntries(bucket, key.key_id);
      if (entries === null) continue;
      for (const chunk of hashedChunks(entries))
        this.stmt.insert.run(bucket, key.key_id, chunk.firstHash, chunk.entries);
      this.stmt.drop.run(bucket, key.key_id);
      decided.hashed.push(key.key_id);
    }
    return decided;
  }

  /** A key's entries in a bucket as hashed entries (hashedEntry), or null when its values repeat. */
  private hashedEntries(bucket: number, keyId: number): Float64Array | null {
    const first = bucket * POSTING_BUCKET_ROWS;
    // A row carries a key once: a bucket's rows bound its entries.
    const entries = new Float64Array(POSTING_BUCKET_ROWS);
    let count = 0;
    let distinct = 0;
    let previous: Buffer | null = null;
    // all(), not iterate(): a call into SQLite per row cost more than the rows' arrays.
    for (const [value, firstRow, rows] of this.stmt.entries.all(bucket, keyId) as [
      Buffer,
      number,
      Uint8Array | null,
    ][]) {
      // In value order: a value differs from the one before or is the same.
      if (previous === null || !value.equals(previous)) distinct++;
      previous = value;
      // The value's bytes as stored: what valueHash hashes for the writer and readers.
      const hash = fnv1a32(value);
      if (rows === null) entries[count++] = hashedEntry(hash, firstRow - first);
      else for (const id of decodePostingRows(rows, firstRow)) entries[count++] = hashedEntry(hash, id - first);
    }
    if (count < MIN_HASHED_ROWS || distinct < count * UNIQUE_SHARE) return null;
    return entries.subarray(0, count);
  }
}

/**
 * Turns the postings of keys whose values do not repeat into hashed postings
 * (hashed-postings.ts), a full bucket at a time, on the write connection: the entries of keys
 * found not to repeat, and the pending blobs of keys the writer writes hashed (HashedKeys,
 * which it keeps up to date). Each bucket is one transaction of its own, so ingestion's
 * transactions never wait on, or fail with, packing; a statement reads a row's posting in
 * exactly one form (a reader of several statements reads them in one transaction). Every
 * bucket is looked at once, oldest first (the next one is kept in `meta`), whether written
 * before or after the upgrade to version 17.
 */
export class PostingPacker {
  private readonly signals: SignalPacker[];

  /**
   * `hashedKeys`: the writer's (TelemetryWriter.hashedKeys), so that it writes hashed the keys
   * this packer finds not to repeat; without it the writer keeps writing entries for them.
   */
  constructor(
    db: Database.Database,
    hashedKeys: HashedKeys = new HashedKeys(db),
    tables: readonly PostingTables[] = signalTables(),
  ) {
    this.signals = tables.map((t) => new SignalPacker(db, t, hashedKeys));
  }

  /** Packs one bucket of the first signal that has one to pack; false when none has. */
  packNext(): boolean {
    for (const signal of this.signals) if (signal.packNext()) return true;
    return false;
  }
}
