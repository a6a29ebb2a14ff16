import type Database from "better-sqlite3";
import type { Migration } from "./shared.js";

// Attribute postings listed their row ids as JSON text (`[1041,1043,1090]`): about 8 bytes an id,
// and a sixth of a span's bytes (docs/store-density.md). From this version `rows` holds the
// differences from each id to the next after `first_row`, as unsigned varints (7 bits a byte,
// low bits first): mostly one byte an id, and an empty blob for an entry of one row (a value
// unique to its span). The conversion is written out here, not imported from the writer's
// coder (posting-rows.ts), so that this step stays what it was whatever that file becomes.

const TABLES = ["span_postings", "log_postings"] as const;
/** Entries converted between progress reports. */
const REPORT_EVERY = 20_000;

const tableSql = (name: string) => `CREATE TABLE ${name} (
  bucket INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  value TEXT NOT NULL,
  first_row INTEGER NOT NULL,
  last_row INTEGER NOT NULL,
  -- the row ids after first_row, each as its difference from the one before, in unsigned
  -- varints (7 bits a byte, low bits first); empty for an entry of one row
  rows BLOB NOT NULL,
  PRIMARY KEY (bucket, key_id, value, first_row)
) WITHOUT ROWID;`;

/** The blob of a JSON text list: its ids ascending and distinct, after the smallest. */
function rowsBlob(json: string): Buffer {
  const parsed = JSON.parse(json) as unknown[];
  // Row ids are safe integers; anything else (which no writer made) fails the step, rolled back.
  if (!parsed.every((id) => Number.isSafeInteger(id)))
    throw new Error(`a posting list that is not row ids: ${json.slice(0, 80)}`);
  const sorted = (parsed as number[]).sort((a, b) => a - b);
  const ids = sorted.filter((id, i) => i === 0 || id !== sorted[i - 1]);
  const bytes: number[] = [];
  for (let i = 1; i < ids.length; i++) {
    let value = (ids[i] as number) - (ids[i - 1] as number);
    while (value >= 0x80) {
      bytes.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    bytes.push(value);
  }
  return Buffer.from(bytes);
}

/**
 * Copies one postings table into its version-11 form in one statement: the key and value
 * columns never leave SQLite (a value that is not valid UTF-8 would not survive a round trip
 * through JavaScript), only `rows` goes through the conversion. An entry's first and last ids
 * are its list's smallest and largest, as the writer always made them. Anything that cannot
 * be copied fails the step, which is then rolled back whole.
 */
function convert(db: Database.Database, table: string, converted: () => void): void {
  const copy = `${table}_v11`;
  db.exec(tableSql(copy));
  db.function("obs_v11_rows", { deterministic: true }, (json: unknown) => {
    converted();
    return rowsBlob(String(json));
  });
  // No ON CONFLICT: an entry that cannot be copied (its key taken) fails the step rather than
  // being dropped; an empty list names no row and is left out.
  db.exec(`INSERT INTO ${copy} (bucket, key_id, value, first_row, last_row, rows)
    SELECT p.bucket, p.key_id, p.value, (SELECT min(j.value) FROM json_each(p.rows) j),
      (SELECT max(j.value) FROM json_each(p.rows) j), obs_v11_rows(p.rows)
    FROM ${table} p WHERE json_array_length(p.rows) > 0`);
  db.exec(`DROP TABLE ${table}; ALTER TABLE ${copy} RENAME TO ${table};`);
}

export const v011PostingRowBlobs: Migration = {
  version: 11,
  description: "attribute postings list their row ids as varint differences, not JSON text",
  rewrites: TABLES,
  progressUnit: "posting entries",
  up(db, progress) {
    const total = TABLES.reduce(
      (sum, table) => sum + Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().safeIntegers(false).get()),
      0,
    );
    let done = 0;
    for (const table of TABLES) {
      convert(db, table, () => {
        done++;
        if (done % REPORT_EVERY === 0) progress(done, total);
      });
    }
    progress(total, total);
  },
};
