import type Database from "better-sqlite3";

/**
 * Multi-row statements, cached by row count. One statement run per chunk of rows costs far
 * less than one run per row, which is most of the write path's overhead.
 *
 * They are `INSERT OR FAIL` unless made `OR REPLACE` (see the constructor). With the default (`ABORT`), a statement that may break a
 * constraint (any `NOT NULL` column) halfway through its rows must be undone alone, so SQLite
 * copies every page it is about to change into a statement journal first, a measurable share of
 * the writer's time with 16 KiB pages (docs/perf-history/design-decisions.md). `FAIL` raises
 * the same error but leaves the statement's earlier rows for the caller to undo, and every
 * caller runs inside a transaction that is rolled back whole when anything in it throws
 * (TelemetryWriter.transaction). `ON CONFLICT ... DO NOTHING` still skips the rows its unique
 * key already holds.
 */
export class MultiRowStatement {
  private readonly statements = new Map<number, Database.Statement>();

  /**
   * @param target  the table and its columns, e.g. `t (a, b)`
   * @param tail    e.g. `ON CONFLICT DO NOTHING RETURNING id`
   * @param conflict `REPLACE` for rows that carry every column of their table and overwrite the
   *                 row of their key whole: SQLite replaces a row in place faster than it runs an
   *                 `ON CONFLICT ... DO UPDATE` (bench/metrics-layout.ts, rollup rows)
   */
  constructor(
    private readonly db: Database.Database,
    private readonly target: string,
    private readonly columns: number,
    private readonly tail: string,
    readonly maxRows: number,
    private readonly returnsRows: boolean,
    private readonly conflict: "FAIL" | "REPLACE" = "FAIL",
  ) {}

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const tuple = `(${new Array(this.columns).fill("?").join(", ")})`;
      statement = this.db.prepare(
        `INSERT OR ${this.conflict} INTO ${this.target} VALUES ${new Array(rows).fill(tuple).join(", ")} ${this.tail}`,
      );
      if (this.returnsRows) statement.raw(true);
      statement.safeIntegers(false);
      this.statements.set(rows, statement);
    }
    return statement;
  }

  /**
   * Runs over `values` (flat, `columns` per row) in chunks of `maxRows`, the remainder in
   * power-of-two chunks so few distinct statements are ever prepared. Returns RETURNING rows.
   */
  run(values: unknown[]): unknown[][] {
    const out: unknown[][] = [];
    this.runChunks(values, (statement, part) => {
      if (this.returnsRows) {
        for (const row of statement.all(part) as unknown[][]) out.push(row);
      } else {
        statement.run(part);
      }
    });
    return out;
  }

  /** The rows of the next chunk, `remaining` rows (at least one) being left: as `run` chunks them. */
  chunkRows(remaining: number): number {
    return remaining >= this.maxRows ? this.maxRows : 2 ** Math.floor(Math.log2(remaining));
  }

  /**
   * Runs the statement of `rows` rows (a `chunkRows` answer) over `values`, `rows` × columns of
   * them: for a caller that fills one chunk's values at a time instead of holding them all.
   */
  runChunk(rows: number, values: unknown[]): void {
    this.statement(rows).run(values);
  }

  /**
   * Runs over `items`, a row each, filling one chunk's values at a time (`fill` appends an
   * item's values, `columns` of them): a caller writing many rows never holds all their values
   * at once.
   */
  runRows<T>(items: readonly T[], fill: (out: unknown[], item: T) => void): void {
    const values: unknown[] = [];
    for (let done = 0; done < items.length; ) {
      const rows = this.chunkRows(items.length - done);
      values.length = 0;
      for (let i = done; i < done + rows; i++) fill(values, items[i] as T);
      this.runChunk(rows, values);
      done += rows;
    }
  }

  /** Hands each chunk's statement, values and first row (index into all rows) to `each`. */
  runChunks(values: unknown[], each: (statement: Database.Statement, part: unknown[], firstRow: number) => void): void {
    let offset = 0;
    while (offset < values.length) {
      const rows = this.chunkRows((values.length - offset) / this.columns);
      const end = offset + rows * this.columns;
      const part = offset === 0 && end === values.length ? values : values.slice(offset, end);
      each(this.statement(rows), part, offset / this.columns);
      offset = end;
    }
  }
}
