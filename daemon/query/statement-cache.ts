import type Database from "better-sqlite3";

/**
 * Prepared statements of one connection, by SQL text. A query's SQL depends on its filters, so
 * statements are prepared on first use and kept: preparing costs more than most reads here.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
