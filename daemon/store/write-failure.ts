/**
 * Whether a write failed only because another connection held the file (SQLITE_BUSY after the
 * busy timeout, SQLITE_LOCKED and their extended codes): the same write can succeed later.
 */
export function isTransientWriteFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * Why a write failed, in words a user can act on. better-sqlite3 puts SQLite's extended result
 * code on `error.code`; the common causes get a sentence of their own, anything else keeps
 * SQLite's message.
 */
export function describeWriteFailure(error: unknown, dbPath: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "";
  if (code === "SQLITE_FULL") {
    return `no space left for the database ${dbPath} (its disk or quota is full); nothing from this request was stored. Free disk space and writes resume by themselves, or run obsd with a --max-db-size that fits the disk`;
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return `I/O error writing the database ${dbPath} (${code}: ${message}); nothing from this request was stored`;
  }
  if (code.startsWith("SQLITE_READONLY")) {
    return `the database ${dbPath} cannot be written (${code}: ${message}); nothing from this request was stored`;
  }
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return `the database ${dbPath} is damaged (${code}: ${message}); nothing from this request was stored`;
  }
  return message;
}
