import type Database from "better-sqlite3";

const CHUNK_ROWS = 128;

/**
 * Inserts (kv_id, row id) pairs into an attribute index table with multi-row statements,
 * which costs far less per row than one statement run per pair.
 */
export class RowIndexInserter {
  private readonly statements = new Map<number, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly table: "span_attrs" | "log_attrs",
    private readonly rowColumn: "span_row" | "log_row",
  ) {}

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const values = new Array(rows).fill("(?, ?)").join(", ");
      statement = this.db.prepare(
        `INSERT INTO ${this.table} (kv_id, ${this.rowColumn}) VALUES ${values} ON CONFLICT DO NOTHING`,
      );
      this.statements.set(rows, statement);
    }
    return statement;
  }

  /** `pairs` is flat: [kvId, rowId, kvId, rowId, ...]. */
  insert(pairs: number[]): void {
    for (let offset = 0; offset < pairs.length; offset += CHUNK_ROWS * 2) {
      const chunk =
        offset === 0 && pairs.length <= CHUNK_ROWS * 2 ? pairs : pairs.slice(offset, offset + CHUNK_ROWS * 2);
      this.statement(chunk.length / 2).run(chunk);
    }
  }
}
