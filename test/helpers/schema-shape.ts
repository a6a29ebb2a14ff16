import type Database from "better-sqlite3";
import { schemaText } from "../../daemon/store/schema-snapshot.js";

/**
 * Everything two stores must share to have one schema, read from SQLite itself rather than
 * from the statements that made it: every table's columns (with hidden and generated ones),
 * every index (automatic ones too) with its columns, uniqueness and partiality, triggers,
 * views, and user_version; plus the statements' text as the snapshot prints it.
 */
export function schemaShape(db: Database.Database): Record<string, unknown> {
  const objects = db
    .prepare("SELECT type, name, tbl_name AS tableName FROM sqlite_schema ORDER BY type, name")
    .all() as { type: string; name: string; tableName: string }[];
  const rows = (sql: string, ...params: unknown[]) =>
    db
      .prepare(sql)
      .safeIntegers(false)
      .all(...params);
  const tables = objects.filter((object) => object.type === "table");
  return {
    userVersion: Number(db.pragma("user_version", { simple: true })),
    objects: objects.map((object) => `${object.type} ${object.name} on ${object.tableName}`),
    tables: Object.fromEntries(
      tables.map(({ name }) => [
        name,
        {
          columns: rows("SELECT * FROM pragma_table_xinfo(?) ORDER BY cid", name),
          indexes: (
            rows('SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY name', name) as {
              name: string;
            }[]
          ).map((index) => ({
            ...index,
            columns: rows("SELECT * FROM pragma_index_xinfo(?) ORDER BY seqno", index.name),
          })),
        },
      ]),
    ),
    text: schemaText(db),
  };
}
