/**
 * The bytes of a `metric_point_journal` row: the in-order points of one request, in
 * `metric_points` column order, which the writer holds until their series' minute is written
 * (metric-writer.ts). One BLOB a request is appended at the table's end, where a row per point
 * in `metric_points` would rewrite a page per series every commit (docs/metrics-store.md, "A
 * store that has run a while"); it is read only to replay what a stopped writer held.
 *
 * A point: a byte saying which optional columns follow, the series id and flags (float64 and
 * uint32), time and start (int64), then value, count, sum, min and max (float64) and detail and
 * exemplars (uint32 length, UTF-8) when present.
 */

/** Values per point, in `metric_points` column order (series_id ... exemplars). */
export const JOURNAL_POINT_WIDTH = 11;

const NUMBERS = [4, 5, 6, 7, 8] as const;
const TEXTS = [9, 10] as const;
/** The optional columns, in the order of their bits in a point's first byte. */
const OPTIONAL = [...NUMBERS, ...TEXTS];

/** Packs points given as flat values, JOURNAL_POINT_WIDTH per point. */
export function packJournalPoints(values: readonly unknown[]): Buffer {
  let size = 0;
  for (let at = 0; at < values.length; at += JOURNAL_POINT_WIDTH) {
    size += 1 + 8 + 4 + 8 + 8;
    for (const column of NUMBERS) if (values[at + column] !== null) size += 8;
    for (const column of TEXTS) {
      const text = values[at + column];
      if (text !== null) size += 4 + Buffer.byteLength(text as string);
    }
  }
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  for (let at = 0; at < values.length; at += JOURNAL_POINT_WIDTH) {
    let present = 0;
    for (let bit = 0; bit < OPTIONAL.length; bit++)
      if (values[at + (OPTIONAL[bit] as number)] !== null) present |= 1 << bit;
    offset = out.writeUInt8(present, offset);
    offset = out.writeDoubleLE(Number(values[at]), offset);
    offset = out.writeUInt32LE(Number(values[at + 3]), offset);
    offset = out.writeBigInt64LE(values[at + 1] as bigint, offset);
    offset = out.writeBigInt64LE(values[at + 2] as bigint, offset);
    for (const column of NUMBERS) {
      const value = values[at + column];
      if (value !== null) offset = out.writeDoubleLE(Number(value), offset);
    }
    for (const column of TEXTS) {
      const text = values[at + column];
      if (text === null) continue;
      const length = out.write(text as string, offset + 4, "utf8");
      out.writeUInt32LE(length, offset);
      offset += 4 + length;
    }
  }
  return out;
}

/** The flat values (JOURNAL_POINT_WIDTH per point) of packed points. */
export function unpackJournalPoints(bytes: Uint8Array): unknown[] {
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: unknown[] = [];
  let offset = 0;
  while (offset < input.length) {
    const present = input.readUInt8(offset);
    const seriesId = input.readDoubleLE(offset + 1);
    const flags = input.readUInt32LE(offset + 9);
    const timeNs = input.readBigInt64LE(offset + 13);
    const startNs = input.readBigInt64LE(offset + 21);
    offset += 29;
    const point: unknown[] = [seriesId, timeNs, startNs, flags];
    for (const [bit] of NUMBERS.entries()) {
      if ((present & (1 << bit)) === 0) point.push(null);
      else {
        point.push(input.readDoubleLE(offset));
        offset += 8;
      }
    }
    for (const [i] of TEXTS.entries()) {
      if ((present & (1 << (NUMBERS.length + i))) === 0) point.push(null);
      else {
        const length = input.readUInt32LE(offset);
        point.push(input.toString("utf8", offset + 4, offset + 4 + length));
        offset += 4 + length;
      }
    }
    for (const value of point) values.push(value);
  }
  return values;
}
