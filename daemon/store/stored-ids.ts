/**
 * Trace and span ids as the store keeps them (schema version 16): their bytes in a BLOB, 16 for
 * a trace id and 8 for a span id, not their 32 and 16 hex characters. Answers carry the
 * lower-case hex, so the writer turns the decoders' hex into bytes and readers turn the bytes
 * back: in JavaScript for the records a query returns (`idText`, after the SQL's sort and LIMIT),
 * in the SQL where a query answers with ids itself (`idHex`). A BLOB compares byte by byte,
 * which is the order of the lower-case hex text, so every ORDER BY and cursor over ids keeps its
 * answers.
 *
 * A parameter that names a stored id must be bytes too (`idBytes`, or `unhex(?)` in SQL):
 * SQLite orders any TEXT before any BLOB, so hex compared with a stored id silently matches
 * nothing, or everything.
 */

/** The stored form of an id the decoders checked (lower-case hex of its exact size). */
export function idBytes(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

/** `idBytes`, keeping null (a span without a parent, a log record without a trace). */
export function optionalIdBytes(hex: string | null): Buffer | null {
  return hex === null ? null : Buffer.from(hex, "hex");
}

/** A stored id's hex, as answers carry it (in JavaScript, for the rows a query returns). */
export function idText(stored: Buffer): string {
  return stored.toString("hex");
}

/** `idText`, keeping null; as `optionalIdHex`, an empty id (none is stored) reads as none. */
export function optionalIdText(stored: Buffer | null): string | null {
  return stored === null || stored.length === 0 ? null : stored.toString("hex");
}

/** SQL reading a NOT NULL id column as the hex answers carry. */
export function idHex(column: string): string {
  return `lower(hex(${column}))`;
}

/** SQL reading a nullable id column as hex or NULL (hex() reads NULL as ''; no stored id is empty). */
export function optionalIdHex(column: string): string {
  return `nullif(lower(hex(${column})), '')`;
}
