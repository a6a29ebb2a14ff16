import type Database from "better-sqlite3";
import { hashedBlob, hashedEntry, valueHash } from "./hashed-postings.js";
import type { MultiRowStatement } from "./multi-row.js";
import { POSTING_BUCKET_ROWS, postingBucket } from "./posting-bucket.js";
import { encodePostingRows } from "./posting-rows.js";

export { POSTING_BUCKET_ROWS, postingBucket };

/**
 * Calls `each` with every run of `rows` (ascending, as a transaction hands them out) that lies
 * in one bucket, as [start, end) indexes: what one transaction writes is cut at bucket ends.
 */
function forEachBucketRun(rows: readonly number[], each: (bucket: number, start: number, end: number) => void): void {
  for (let start = 0; start < rows.length; ) {
    const bucket = postingBucket(rows[start] as number);
    let end = start + 1;
    while (end < rows.length && postingBucket(rows[end] as number) === bucket) end++;
    each(bucket, start, end);
    start = end;
  }
}

/** The rows of one key written hashed in a transaction, in row order, and their values' hashes. */
interface HashedRows {
  rows: number[];
  hashes: number[];
}

/**
 * Gathers the attribute postings of one write transaction: for each (key id, value text), the
 * ids of the new rows that carry it. `flush` writes one index entry per pair, in key order.
 * A key in `hashedKeys` (its values do not repeat, hashed-postings.ts) is written instead as
 * one blob per bucket of its rows' (value hash, place) pairs, pending until the packer merges a
 * full bucket's into its hashed postings.
 */
export class PostingsBuffer {
  private readonly byKey = new Map<number, Map<string, number[]>>();
  private readonly hashed = new Map<number, HashedRows>();

  constructor(private readonly hashedKeys: ReadonlySet<number> = new Set()) {}

  add(keyId: number, value: string, rowId: number): void {
    if (this.hashedKeys.has(keyId)) {
      let rows = this.hashed.get(keyId);
      if (!rows) {
        rows = { rows: [], hashes: [] };
        this.hashed.set(keyId, rows);
      }
      rows.rows.push(rowId);
      rows.hashes.push(valueHash(value));
      return;
    }
    let values = this.byKey.get(keyId);
    if (!values) {
      values = new Map();
      this.byKey.set(keyId, values);
    }
    const rows = values.get(value);
    if (rows) rows.push(rowId);
    else values.set(value, [rowId]);
  }

  get empty(): boolean {
    return this.byKey.size === 0 && this.hashed.size === 0;
  }

  /**
   * Writes (bucket, key_id, value, first_row, last_row, rows) entries (rows as posting-rows.ts
   * codes them) and empties the buffer.
   * An entry never crosses a bucket boundary (one transaction's rows can fill several
   * buckets): a reader that wants the rows of an id range then finds every entry holding
   * one of them in that range's buckets, without looking further back.
   */
  flush(insert: MultiRowStatement, pendingInsert: MultiRowStatement): void {
    this.flushHashed(pendingInsert);
    const values: unknown[] = [];
    for (const keyId of [...this.byKey.keys()].sort((a, b) => a - b)) {
      const byValue = this.byKey.get(keyId) as Map<string, number[]>;
      for (const value of [...byValue.keys()].sort()) {
        // Row ids are handed out in ascending order within a transaction, so lists are sorted.
        const rows = byValue.get(value) as number[];
        forEachBucketRun(rows, (bucket, start, end) => {
          const run = rows.slice(start, end);
          values.push(bucket, keyId, value, run[0], run[run.length - 1], encodePostingRows(run));
        });
      }
    }
    this.byKey.clear();
    if (values.length > 0) insert.run(values);
  }

  /** Writes (bucket, key_id, first_row, entries) pending blobs, one per key and bucket, and forgets them. */
  private flushHashed(pendingInsert: MultiRowStatement): void {
    const values: unknown[] = [];
    for (const [keyId, { rows, hashes }] of this.hashed) {
      forEachBucketRun(rows, (bucket, start, end) => {
        const entries = new Float64Array(end - start);
        const first = bucket * POSTING_BUCKET_ROWS;
        for (let i = start; i < end; i++) {
          entries[i - start] = hashedEntry(hashes[i] as number, (rows[i] as number) - first);
        }
        values.push(bucket, keyId, rows[start], hashedBlob(entries));
      });
    }
    this.hashed.clear();
    if (values.length > 0) pendingInsert.run(values);
  }

  clear(): void {
    this.byKey.clear();
    this.hashed.clear();
  }
}

/** meta key: the first span row id from which posting entries never cross a bucket boundary. */
const BUCKETED_FROM = "span_postings_bucketed_from";

/**
 * Records, once per store, the first span row whose postings are split at bucket
 * boundaries: a store written by an older version may hold entries that straddle buckets
 * below it. Runs on the write connection at open, before any write of this process.
 */
export function markBucketedPostings(db: Database.Database): void {
  db.prepare(
    `INSERT OR IGNORE INTO meta (key, value)
     SELECT ?, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'spans'), 0) + 1`,
  ).run(BUCKETED_FROM);
}

/** The first span row id whose postings lie in their own bucket (see markBucketedPostings). */
export function bucketedPostingsFrom(db: Database.Database): number {
  const value = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(BUCKETED_FROM) as string | undefined;
  return value === undefined ? Number.POSITIVE_INFINITY : Number(value);
}
