import type Database from "better-sqlite3";
import { SIGNALS } from "../signals/registry.js";
import { type HashedEntry, hashedChunks, valueHash } from "./hashed-postings.js";
import { decodePostingRows, registerPostingFunctions } from "./posting-rows.js";
import { POSTING_BUCKET_ROWS, postingBucket } from "./postings.js";

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
}

/** Every signal's that has postings (the signal registry). */
function signalTables(): PostingTables[] {
  return SIGNALS.flatMap(({ retention }) =>
    "postingsTable" in retention
      ? [{ records: retention.table, postings: retention.postingsTable, hashed: retention.hashedPostingsTable }]
      : [],
  );
}

interface KeyStats {
  key_id: number;
  distinct_values: number;
  row_count: number;
  lo: number;
  hi: number;
}

class SignalPacker {
  private readonly marker: string;
  private readonly stmt: Record<
    "next" | "setNext" | "lowest" | "sequence" | "stats" | "entries" | "insert" | "drop",
    Database.Statement
  >;

  constructor(
    private readonly db: Database.Database,
    tables: PostingTables,
  ) {
    this.marker = `${tables.postings}_packed_below`;
    const { postings, hashed, records } = tables;
    this.stmt = {
      next: db.prepare("SELECT value FROM meta WHERE key = ?").pluck(),
      setNext: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
      lowest: db.prepare(`SELECT min(id) FROM ${records}`).pluck(),
      sequence: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck(),
      // Entries are in (key, value) order within a bucket, so the distinct count streams.
      stats: db.prepare(
        `SELECT key_id, count(DISTINCT value) AS distinct_values,
           sum(CASE WHEN length(rows) = 0 THEN 1 ELSE obs_posting_count(rows) END) AS row_count,
           min(first_row) AS lo, max(last_row) AS hi
         FROM ${postings} WHERE bucket = ? GROUP BY key_id`,
      ),
      entries: db.prepare(`SELECT value, first_row, rows FROM ${postings} WHERE bucket = ? AND key_id = ?`).raw(),
      insert: db.prepare(`INSERT INTO ${hashed} (bucket, key_id, first_hash, entries) VALUES (?, ?, ?, ?)`),
      drop: db.prepare(`DELETE FROM ${postings} WHERE bucket = ? AND key_id = ?`),
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
    const marked = this.stmt.next.get(this.marker) as string | undefined;
    const lowest = this.stmt.lowest.get() as number | null;
    if (lowest === null) return null;
    // Buckets below the lowest stored row's hold entries of deleted rows only: retention drops them.
    const bucket = Math.max(marked === undefined ? 0 : Number(marked), postingBucket(lowest));
    return bucket < postingBucket(sequence + 1) ? bucket : null;
  }

  /** Packs the oldest full bucket not yet packed, in one transaction; false when there is none. */
  packNext(): boolean {
    return this.db.transaction(() => {
      const bucket = this.nextBucket();
      if (bucket === null) return false;
      this.pack(bucket);
      this.stmt.setNext.run(this.marker, String(bucket + 1));
      return true;
    })();
  }

  private pack(bucket: number): void {
    const first = bucket * POSTING_BUCKET_ROWS;
    for (const key of this.stmt.stats.all(bucket) as KeyStats[]) {
      if (key.distinct_values < key.row_count * UNIQUE_SHARE) continue;
      // An entry written before entries were cut at bucket ends (postings.ts) may list rows of
      // the next bucket: such a key stays as it is here.
      if (key.lo < first || key.hi >= first + POSTING_BUCKET_ROWS) continue;
      const entries: HashedEntry[] = [];
      for (const [value, firstRow, rows] of this.stmt.entries.iterate(bucket, key.key_id) as IterableIterator<
        [string, number, Uint8Array]
      >) {
        const hash = valueHash(value);
        const ids = rows.length === 0 ? [firstRow] : decodePostingRows(rows, firstRow);
        for (const id of ids) entries.push({ hash, place: id - first });
      }
      for (const chunk of hashedChunks(entries))
        this.stmt.insert.run(bucket, key.key_id, chunk.firstHash, chunk.entries);
      this.stmt.drop.run(bucket, key.key_id);
    }
  }
}

/**
 * Turns the postings of keys whose values do not repeat into hashed postings
 * (hashed-postings.ts), a full bucket at a time, on the write connection. Each bucket is one
 * transaction of its own, so ingestion's transactions never wait on, or fail with, packing;
 * readers see a bucket's entries of a key in one form or the other, never neither. Every
 * bucket is looked at once, oldest first (the next one is kept in `meta`), whether written
 * before or after the upgrade to version 17.
 */
export class PostingPacker {
  private readonly signals: SignalPacker[];

  constructor(db: Database.Database, tables: readonly PostingTables[] = signalTables()) {
    registerPostingFunctions(db);
    this.signals = tables.map((t) => new SignalPacker(db, t));
  }

  /** Packs one bucket of the first signal that has one to pack; false when none has. */
  packNext(): boolean {
    for (const signal of this.signals) if (signal.packNext()) return true;
    return false;
  }
}
