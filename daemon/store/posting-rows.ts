import type Database from "better-sqlite3";

/**
 * The row ids of one posting entry (schema version 11): the entry's `first_row` column holds
 * the first id, and `rows` the differences from each id to the next as unsigned varints (7 bits
 * a byte, low bits first), so an entry of one row is an empty blob. Ids in an entry ascend
 * (a transaction hands them out in order), and most differences fit one byte: a tenth of the
 * JSON text's size (docs/store-density.md).
 */

/**
 * An entry of one row's blob, shared: a span of many distinct attribute values makes as many
 * entries of one row, and a Buffer each (an object and an ArrayBuffer) held until the commit
 * took tens of megabytes for the largest requests (docs/PERFORMANCE.md, hostile-memory).
 * Only read: the statements bind it.
 */
const ONE_ROW = Buffer.alloc(0);

/** The `rows` blob of the ascending ids `ids` (the first goes in `first_row`). */
export function encodePostingRows(ids: readonly number[]): Buffer {
  if (ids.length <= 1) return ONE_ROW;
  let size = 0;
  for (let i = 1; i < ids.length; i++) size += varintSize((ids[i] as number) - (ids[i - 1] as number));
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (let i = 1; i < ids.length; i++) {
    let value = (ids[i] as number) - (ids[i - 1] as number);
    if (!(value > 0)) throw new RangeError(`posting row ids must ascend: ${ids[i - 1]} then ${ids[i]}`);
    while (value >= 0x80) {
      out[pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    out[pos++] = value;
  }
  return out;
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Calls `each` with every id of an entry, the first included, in order. */
function forEachRow(rows: Uint8Array, first: number, each: (id: number) => void): void {
  let id = first;
  each(id);
  let pos = 0;
  while (pos < rows.length) {
    let delta = 0;
    let scale = 1;
    let byte: number;
    do {
      if (pos >= rows.length) throw new RangeError("a posting entry's row ids end inside a number");
      byte = rows[pos++] as number;
      delta += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    id += delta;
    each(id);
  }
}

/** The ids of an entry, from its `first_row` and `rows`. */
export function decodePostingRows(rows: Uint8Array, first: number): number[] {
  const ids: number[] = [];
  forEachRow(rows, first, (id) => ids.push(id));
  return ids;
}

/** How many ids an entry holds: one, and one more per byte that ends a number. */
export function postingRowCount(rows: Uint8Array): number {
  let count = 1;
  for (const byte of rows) if (byte < 0x80) count++;
  return count;
}

/**
 * Defines, on a reading connection, obs_posting_rows(rows, first_row): the entry's ids as a
 * JSON array, for `json_each` (measured as fast as the JSON text postings were read before),
 * and obs_posting_count(rows).
 */
export function registerPostingFunctions(db: Database.Database): void {
  db.function("obs_posting_rows", { deterministic: true, safeIntegers: false }, (rows: unknown, first: unknown) => {
    let text = "";
    forEachRow(rows as Uint8Array, Number(first), (id) => {
      text += text === "" ? id : `,${id}`;
    });
    return `[${text}]`;
  });
  db.function("obs_posting_count", { deterministic: true, safeIntegers: false }, (rows: unknown) =>
    postingRowCount(rows as Uint8Array),
  );
}
