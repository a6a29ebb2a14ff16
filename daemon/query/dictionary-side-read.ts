import Database from "better-sqlite3";

/**
 * Reads `count` rows of a dictionary around `id` (the attribute keys, the attribute values)
 * through a short-lived connection of its own, for a read connection's copy that lacks an id a
 * row names. The reader's own connection is busy running the statement that met the id, and a
 * new connection reads the latest commit, at least as new as the row. Dictionary rows are only
 * ever added and commit with the first rows that name them, so the id is there. An in-memory
 * database has no other connection: nothing is read.
 */
export function readAroundOnSide(
  db: Database.Database,
  id: number,
  count: number,
  read: (source: Database.Database, from: number, count: number) => void,
): void {
  if (db.memory) return;
  const side = new Database(db.name, { readonly: true, fileMustExist: true });
  try {
    read(side, Math.max(0, id - Math.floor(count / 2)), count);
  } finally {
    side.close();
  }
}
