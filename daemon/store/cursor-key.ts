import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";

/**
 * The key that signs page cursors (shared/cursor.ts): random, made once per store and kept
 * in its meta table, so cursors stay valid across restarts of the same store and a cursor
 * from another collector (another store) is refused.
 */
const META_KEY = "cursor_key";

/** Creates the store's cursor key if it has none. Runs on the write connection at open. */
export function ensureCursorKey(db: Database.Database): void {
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(META_KEY, randomBytes(32).toString("hex"));
}

/** The store's cursor key; a store opened only for reading before it had one gets a key for this process. */
export function readCursorKey(db: Database.Database): Buffer {
  const hex = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(META_KEY) as string | undefined;
  return hex ? Buffer.from(hex, "hex") : randomBytes(32);
}
