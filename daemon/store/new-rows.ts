import type Database from "better-sqlite3";
import { MultiRowStatement } from "./multi-row.js";

/**
 * Inserts rows into a table whose integer key only grows (AUTOINCREMENT, one writer), skipping
 * rows whose unique key is already stored, and tells the id of each new row.
 *
 * It does so without RETURNING, which cost a large share of the span insert (docs/PERFORMANCE.md,
 * "What moved the numbers"). A
 * multi-row INSERT stores its rows one after another in the order given, each with the next
 * id, so when every row of a chunk was new their ids are the `changes` ids ending at
 * `lastInsertRowid`. A skipped row still uses up an id, so a chunk that skipped rows (a resend)
 * reads its new rows back instead (the `changes` highest ids, up to `lastInsertRowid`) and
 * matches them to the input in order.
 */
export class NewRowInsert {
  private readonly rows: MultiRowStatement;
  private readonly readBack: Database.Statement;

  /**
   * @param table       an AUTOINCREMENT table with an `id` key
   * @param columns     the inserted columns; the first `keyColumns` of them form the unique key
   * @param conflict    the unique key's conflict target, e.g. `(trace_key, span_id)`; empty for
   *                    any unique constraint (needed when the key is an index on expressions)
   */
  constructor(
    db: Database.Database,
    table: string,
    private readonly columns: readonly string[],
    private readonly keyColumns: number,
    conflict: string,
    maxRows: number,
  ) {
    this.rows = new MultiRowStatement(
      db,
      `${table} (${columns.join(", ")})`,
      columns.length,
      `ON CONFLICT ${conflict} DO NOTHING`,
      maxRows,
      false,
    );
    const key = columns.slice(0, keyColumns).join(", ");
    this.readBack = db
      .prepare(`SELECT * FROM (SELECT id, ${key} FROM ${table} WHERE id <= ? ORDER BY id DESC LIMIT ?) ORDER BY id`)
      .raw(true);
    this.readBack.safeIntegers(false);
  }

  /**
   * Inserts `values` (flat, one entry per column per row). Returns, for each input row, the id
   * it was stored under, or 0 when it was skipped (already stored, or repeated in `values`).
   */
  run(values: unknown[]): number[] {
    const width = this.columns.length;
    const ids = new Array<number>(values.length / width).fill(0);
    this.rows.runChunks(values, (statement, part, firstRow) => {
      const rows = part.length / width;
      const { changes, lastInsertRowid } = statement.run(part);
      if (changes === 0) return;
      const last = Number(lastInsertRowid);
      if (changes === rows) {
        for (let i = 0; i < rows; i++) ids[firstRow + i] = last - rows + 1 + i;
        return;
      }
      // The new rows are a subsequence of the input, in input order.
      let input = 0;
      for (const stored of this.readBack.all(last, changes) as unknown[][]) {
        while (input < rows && !this.sameKey(part, input, stored)) input++;
        if (input === rows) throw new Error("a stored row does not match the rows inserted");
        ids[firstRow + input] = stored[0] as number;
        input++;
      }
    });
    return ids;
  }

  private sameKey(part: unknown[], row: number, stored: unknown[]): boolean {
    const offset = row * this.columns.length;
    for (let k = 0; k < this.keyColumns; k++) {
      const sent = part[offset + k];
      const kept = stored[k + 1];
      if (sent instanceof Uint8Array && kept instanceof Uint8Array) {
        if (Buffer.compare(sent, kept) !== 0) return false;
      } else if (sent !== kept) return false;
    }
    return true;
  }
}
