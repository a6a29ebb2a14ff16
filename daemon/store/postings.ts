import type { MultiRowStatement } from "./multi-row.js";

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

  /** Writes (bucket, key_id, value, first_row, last_row, rows) entries and empties the buffer. */
  flush(insert: MultiRowStatement): void {
    const values: unknown[] = [];
    for (const keyId of [...this.byKey.keys()].sort((a, b) => a - b)) {
      const byValue = this.byKey.get(keyId) as Map<string, number[]>;
      for (const value of [...byValue.keys()].sort()) {
        // Row ids are handed out in ascending order within a transaction, so lists are sorted.
        const rows = byValue.get(value) as number[];
        const first = rows[0] as number;
        values.push(postingBucket(first), keyId, value, first, rows[rows.length - 1], JSON.stringify(rows));
      }
    }
    this.byKey.clear();
    if (values.length > 0) insert.run(values);
  }

  clear(): void {
    this.byKey.clear();
  }
}
