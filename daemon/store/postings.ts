import type Database from "better-sqlite3";
import type { MultiRowStatement } from "./multi-row.js";
import { encodePostingRows } from "./posting-rows.js";

/** Rows per posting bucket: entries of recent rows share a small region of the index. */
export const POSTING_BUCKET_ROWS = 8192;

export function postingBucket(rowId: number): number {
  return Math.floor(rowId / POSTING_BUCKET_ROWS);
}

/**
 * Gathers the attribute postings of one write transaction: for each (key id, value text), the
 * ids of the new rows that carry it. `flush` writes one index entry per pair, in key order.
 */
export class PostingsBuffer {
  private readonly byKey = new Map<number, Map<string, number[]>>();

  add(keyId: number, value: string, rowId: number): void {
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
    return this.byKey.size === 0;
  }

  /**
   * Writes (bucket, key_id, value, first_row, last_row, rows) entries (rows as posting-rows.ts
   * codes them) and empties the buffer.
   * An entry never crosses a bucket boundary (one transaction's rows can fill several
   * buckets): a reader that wants the rows of an id range then finds every entry holding
   * one of them in that range's buckets, without looking further back.
   */
  flush(insert: MultiRowStatement): void {
    const values: unknown[] = [];
    for (const keyId of [...this.byKey.keys()].sort((a, b) => a - b)) {
      const byValue = this.byKey.get(keyId) as Map<string, number[]>;
      for (const value of [...byValue.keys()].sort()) {
        // Row ids are handed out in ascending order within a transaction, so lists are sorted.
        const rows = byValue.get(value) as number[];
        for (let start = 0; start < rows.length; ) {
          const bucket = postingBucket(rows[start] as number);
          let end = start + 1;
          while (end < rows.length && postingBucket(rows[end] as number) === bucket) end++;
          const run = rows.slice(start, end);
          values.push(bucket, keyId, value, run[0], run[run.length - 1], encodePostingRows(run));
          start = end;
        }
      }
    }
    this.byKey.clear();
    if (values.length > 0) insert.run(values);
  }

  clear(): void {
    this.byKey.clear();
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
