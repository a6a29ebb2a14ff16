import { endianness } from "node:os";

/**
 * A closed rollup slot of one metric packed into one `metric_slot_packs` row: every series'
 * `metric_rollups` row of that width and slot, one BLOB per column. A day's view reads one row
 * per slot, and only the columns its agg needs, instead of one row per series and slot; the
 * rows stay, and stay the source a pack is made from (metric-slot-packer.ts).
 *
 * Each column BLOB holds one 8-byte little-endian value per series, in series id order:
 *   series_ids, points (float64); first_ns, last_ns (int64); value_sum, value_min, value_max,
 *   value_last, increase, sum_increase (float64, NaN for NULL: SQLite stores no NaN, it reads
 *   one back as NULL, so nothing a row holds is lost); resets (float64).
 * A value column whose every value is NULL is stored as NULL, and so is `resets` when every
 * value is 0: most metrics have no resets, and each kind fills only some of the value columns.
 * `buckets` and `exemplars` hold, per series in order, its text, as a u32 of its UTF-8 length
 * plus one (0 for NULL) and the bytes; NULL when no series has one.
 *
 * Separate columns because a query copies what it selects out of SQLite: a day of a thousand
 * series is 96,000 values a column, and copying all eleven columns cost more than the rows'
 * reading it replaces (a histogram's bucket texts, more than all the rest).
 */

/** The columns of a pack, named as in metric_rollups (series_ids holds series_id). */
export const PACK_COLUMNS = [
  "series_id",
  "points",
  "first_ns",
  "last_ns",
  "value_sum",
  "value_min",
  "value_max",
  "value_last",
  "increase",
  "sum_increase",
  "resets",
] as const;

export type PackColumn = (typeof PACK_COLUMNS)[number];

/** The `metric_slot_packs` column of a pack column. */
export const packColumnName = (column: PackColumn): string => (column === "series_id" ? "series_ids" : column);

/** Columns stored as NULL when every value is NULL (or, for resets, 0): all but the ids, counts and times. */
const NULLABLE = new Set<PackColumn>(PACK_COLUMNS.slice(4));
const TIME_COLUMNS = new Set<PackColumn>(["first_ns", "last_ns"]);
const LITTLE_ENDIAN = endianness() === "LE";

/**
 * One series' row of a slot as SQL reads it (`SELECT ${PACK_ENTRY_SQL} FROM metric_rollups`):
 * the PACK_COLUMNS in order, then its buckets and exemplars texts.
 */
export type PackEntry = [
  seriesId: number | bigint,
  points: number | bigint,
  firstNs: bigint,
  lastNs: bigint,
  valueSum: number | null,
  valueMin: number | null,
  valueMax: number | null,
  valueLast: number | null,
  increase: number | null,
  sumIncrease: number | null,
  resets: number | bigint,
  buckets: string | null,
  exemplars: string | null,
];

/** The SQL select list of a PackEntry from `metric_rollups`. */
export const PACK_ENTRY_SQL = `${PACK_COLUMNS.join(", ")}, buckets, exemplars`;

/** A pack's stored values by `metric_slot_packs` column (packColumnName, `buckets`, `exemplars`). */
export type PackValues = Record<string, Buffer | null>;

/** The `metric_slot_packs` columns a pack is stored in, in the row's order. */
export const PACK_STORED_COLUMNS = [...PACK_COLUMNS.map(packColumnName), "buckets", "exemplars"];

/** Texts (one per series, in order) as a `buckets` or `exemplars` value; null when all are NULL. */
function packTexts(texts: readonly (string | null)[]): Buffer | null {
  if (texts.every((text) => text === null)) return null;
  const parts = texts.map((text) => (text === null ? null : Buffer.from(text, "utf8")));
  const bytes = Buffer.alloc(parts.reduce((sum, part) => sum + 4 + (part?.length ?? 0), 0));
  let at = 0;
  for (const part of parts) {
    bytes.writeUInt32LE(part === null ? 0 : part.length + 1, at);
    at += 4;
    if (part !== null) at += part.copy(bytes, at);
  }
  return bytes;
}

/** Packs entries (each series once, ascending series id: the order readers expect). */
export function packEntries(entries: readonly PackEntry[]): PackValues {
  const n = entries.length;
  const out: PackValues = {};
  PACK_COLUMNS.forEach((column, c) => {
    const bytes = Buffer.alloc(8 * n);
    let stored = !NULLABLE.has(column);
    entries.forEach((entry, i) => {
      const value = entry[c];
      if (TIME_COLUMNS.has(column)) bytes.writeBigInt64LE(BigInt(value as bigint), i * 8);
      else bytes.writeDoubleLE(value === null ? Number.NaN : Number(value), i * 8);
      if (value !== null && !(column === "resets" && Number(value) === 0)) stored = true;
    });
    out[packColumnName(column)] = stored ? bytes : null;
  });
  out.buckets = packTexts(entries.map((entry) => entry[11]));
  out.exemplars = packTexts(entries.map((entry) => entry[12]));
  return out;
}

function view<T extends Float64Array | BigInt64Array>(
  bytes: Uint8Array,
  make: new (buffer: ArrayBufferLike, offset: number, length: number) => T,
  copy: new (length: number) => T,
  read: (view: DataView, offset: number) => number | bigint,
): T {
  const n = bytes.byteLength / 8;
  // A view needs the platform's byte order and an 8-byte aligned start; else a copy.
  if (LITTLE_ENDIAN && bytes.byteOffset % 8 === 0) return new make(bytes.buffer, bytes.byteOffset, n);
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new copy(n);
  for (let i = 0; i < n; i++) (out as unknown as (number | bigint)[])[i] = read(data, i * 8);
  return out;
}

/**
 * A float64 column's values (NaN for NULL), null for a NULL column. Typed arrays, views on the
 * selected bytes where they can be: a query reads a value of every series in every slot, often
 * before the code reading them is optimized, and a call per value then costs more than the
 * whole read.
 */
export function packedFloats(bytes: Uint8Array | null): Float64Array | null {
  return bytes === null ? null : view(bytes, Float64Array, Float64Array, (d, at) => d.getFloat64(at, true));
}

/** A time column's values (int64 ns). */
export function packedTimes(bytes: Uint8Array): BigInt64Array {
  return view(bytes, BigInt64Array, BigInt64Array, (d, at) => d.getBigInt64(at, true));
}

/** Each series' text from a `buckets` or `exemplars` value, in order (all null for NULL). */
export function* packedTexts(bytes: Uint8Array | null, count: number): Generator<string | null> {
  if (bytes === null) {
    for (let i = 0; i < count; i++) yield null;
    return;
  }
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 4 > bytes.byteLength) throw new Error(`a metric slot pack's texts end before its ${count} series`);
    const length = data.getUint32(at, true);
    at += 4;
    if (length === 0) {
      yield null;
      continue;
    }
    yield Buffer.from(bytes.buffer, bytes.byteOffset + at, length - 1).toString("utf8");
    at += length - 1;
  }
}

/** Every series' row of a pack read whole (`SELECT ${PACK_STORED_COLUMNS}`), as SQL reads it from metric_rollups. */
export function unpackEntries(values: Record<string, Uint8Array | null>): PackEntry[] {
  const ids = values.series_ids;
  if (!(ids instanceof Uint8Array) || ids.byteLength % 8 !== 0)
    throw new Error("a metric slot pack without its series");
  const count = ids.byteLength / 8;
  const columns = PACK_COLUMNS.map((column) => {
    const bytes = values[packColumnName(column)] ?? null;
    if (bytes !== null && bytes.byteLength !== ids.byteLength) {
      throw new Error(`a metric slot pack whose ${column} has ${bytes.byteLength / 8} values for ${count} series`);
    }
    if (TIME_COLUMNS.has(column)) return packedTimes(bytes as Uint8Array);
    return packedFloats(bytes);
  });
  const buckets = [...packedTexts(values.buckets ?? null, count)];
  const exemplars = [...packedTexts(values.exemplars ?? null, count)];
  const out: PackEntry[] = [];
  for (let i = 0; i < count; i++) {
    const row = PACK_COLUMNS.map((column, c) => {
      const value = columns[c]?.[i];
      if (value === undefined) return column === "resets" ? 0 : null;
      return typeof value === "number" && Number.isNaN(value) ? null : value;
    });
    out.push([...row, buckets[i] ?? null, exemplars[i] ?? null] as PackEntry);
  }
  return out;
}
