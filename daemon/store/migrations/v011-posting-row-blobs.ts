import type Database from "better-sqlite3";
import type { Migration } from "./shared.js";

// Attribute postings listed their row ids as JSON text (`[1041,1043,1090]`): about 8 bytes an id,
// and a sixth of a span's bytes (docs/store-density.md). From this version `rows` holds the
// differences from each id to the next after `first_row`, as unsigned varints (7 bits a byte,
// low bits first): mostly one byte an id, and an empty blob for an entry of one row (a value
// unique to its span). The conversion is written out here, not imported from the writer's
// coder (posting-rows.ts), so that this step stays what it was whatever that file becomes.

const TABLES = ["span_postings", "log_postings"] as const;
/** Entries copied per statement between progress reports. */
const CHUNK = 20_000;

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

/** Ascending, distinct ids of a JSON text list, as written by every earlier version. */
function idsOf(json: string): number[] {
  const ids = (JSON.parse(json) as number[]).map(Number).sort((a, b) => a - b);
  return ids.filter((id, i) => i === 0 || id !== ids[i - 1]);
}

function deltas(ids: readonly number[]): Buffer {
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

type Entry = [bucket: number, keyId: number, value: string, firstRow: number, lastRow: number, rows: string];

/** Copies one postings table into its version-11 form, chunk by chunk along its key. */
function convert(db: Database.Database, table: string, onChunk: (entries: number) => void): void {
  const copy = `${table}_v11`;
  db.exec(tableSql(copy));
  const first = db.prepare(`SELECT * FROM ${table} ORDER BY bucket, key_id, value, first_row LIMIT ${CHUNK}`);
  const next = db.prepare(
    `SELECT * FROM ${table} WHERE (bucket, key_id, value, first_row) > (?, ?, ?, ?)
     ORDER BY bucket, key_id, value, first_row LIMIT ${CHUNK}`,
  );
  for (const statement of [first, next]) statement.raw(true).safeIntegers(false);
  const insert = db.prepare(
    `INSERT INTO ${copy} (bucket, key_id, value, first_row, last_row, rows) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  let entries = first.all() as Entry[];
  while (entries.length > 0) {
    for (const [bucket, keyId, value, , , rows] of entries) {
      const ids = idsOf(rows);
      if (ids.length === 0) continue;
      insert.run(bucket, keyId, value, ids[0], ids[ids.length - 1], deltas(ids));
    }
    onChunk(entries.length);
    const [bucket, keyId, value, firstRow] = entries[entries.length - 1] as Entry;
    entries = next.all(bucket, keyId, value, firstRow) as Entry[];
  }
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
      convert(db, table, (entries) => {
        done += entries;
        progress(done, total);
      });
    }
  },
};
