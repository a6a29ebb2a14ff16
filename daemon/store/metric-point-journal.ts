/**
 * The bytes of a `metric_point_journal` row: the in-order points of one request, in
 * `metric_points` column order, which the writer holds until their series writes them
 * (metric-writer.ts, POINT_HOLD_MINUTES). One BLOB a request is appended at the table's end,
 * where a row per point in `metric_points` would rewrite a page per series every commit
 * (docs/metrics-store.md, "A store that has run a while"); it is read back only to replay what a
 * stopped writer held.
 *
 * A point: a byte saying which optional columns follow, the series id and flags (float64 and
 * uint32), time and start (int64), then value, count, sum, min and max (float64) and detail and
 * exemplars (uint32 length, UTF-8) when present. A point is read back by its offset too: the
 * writer holds its series' points as offsets into the bytes of the request they came in
 * (metric-held-points.ts).
 */

/** Values per point, in `metric_points` column order (series_id ... exemplars). */
export const JOURNAL_POINT_WIDTH = 11;

const NUMBERS = [4, 5, 6, 7, 8] as const;
const TEXTS = [9, 10] as const;
/** The optional columns, in the order of their bits in a point's first byte. */
const OPTIONAL = [...NUMBERS, ...TEXTS];

/** Where a point's time is, from its offset: after the optional columns' byte, series id and flags. */
const TIME_AT = 1 + 8 + 4;

/**
 * Packs points given as flat values, JOURNAL_POINT_WIDTH per point; each point's offset in the
 * bytes is appended to `offsets` when given.
 */
export function packJournalPoints(values: readonly unknown[], offsets?: number[]): Buffer {
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
  // Numbers through a DataView: Buffer's bigint writers split a bigint with bigint arithmetic,
  // allocating per call.
  const view = viewOf(out);
  let offset = 0;
  for (let at = 0; at < values.length; at += JOURNAL_POINT_WIDTH) {
    offsets?.push(offset);
    let present = 0;
    for (let bit = 0; bit < OPTIONAL.length; bit++)
      if (values[at + (OPTIONAL[bit] as number)] !== null) present |= 1 << bit;
    view.setUint8(offset, present);
    view.setFloat64(offset + 1, Number(values[at]), true);
    view.setUint32(offset + 9, Number(values[at + 3]), true);
    view.setBigInt64(offset + TIME_AT, values[at + 1] as bigint, true);
    view.setBigInt64(offset + TIME_AT + 8, values[at + 2] as bigint, true);
    offset += TIME_AT + 16;
    for (const column of NUMBERS) {
      const value = values[at + column];
      if (value === null) continue;
      view.setFloat64(offset, Number(value), true);
      offset += 8;
    }
    for (const column of TEXTS) {
      const text = values[at + column];
      if (text === null) continue;
      const length = out.write(text as string, offset + 4, "utf8");
      view.setUint32(offset, length, true);
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
  while (offset < input.length) offset = unpackJournalPoint(input, offset, values);
  return values;
}

/**
 * Sets the values of the point at `offset` into `out` from index `to` (by default appended);
 * returns the offset of the next point.
 */
export function unpackJournalPoint(input: Buffer, offset: number, out: unknown[], to = out.length): number {
  const view = viewOf(input);
  const present = view.getUint8(offset);
  let i = to;
  out[i++] = view.getFloat64(offset + 1, true);
  out[i++] = view.getBigInt64(offset + TIME_AT, true);
  out[i++] = view.getBigInt64(offset + TIME_AT + 8, true);
  out[i++] = view.getUint32(offset + 9, true);
  let at = offset + TIME_AT + 16;
  for (let bit = 0; bit < NUMBERS.length; bit++) {
    if ((present & (1 << bit)) === 0) out[i++] = null;
    else {
      out[i++] = view.getFloat64(at, true);
      at += 8;
    }
  }
  for (let t = 0; t < TEXTS.length; t++) {
    if ((present & (1 << (NUMBERS.length + t))) === 0) out[i++] = null;
    else {
      const length = view.getUint32(at, true);
      out[i++] = input.toString("utf8", at + 4, at + 4 + length);
      at += 4 + length;
    }
  }
  return at;
}

/**
 * Where held points are: alternately a request's journal bytes and a point's offset in them
 * (metric-held-points.ts), oldest first within a series.
 */
export type JournalRefs = (Buffer | number)[];

/**
 * Sets `out` to the values of `count` points of `refs` from its `first`-th, JOURNAL_POINT_WIDTH
 * each and nothing after them: one chunk of a multi-row insert, so that a caller writing many
 * held points holds one chunk's values at a time, not all of them.
 */
export function unpackJournalRefs(refs: JournalRefs, first: number, count: number, out: unknown[]): void {
  // Overwritten in place: chunk after chunk of the same size reuses the array's storage.
  if (out.length !== count * JOURNAL_POINT_WIDTH) out.length = count * JOURNAL_POINT_WIDTH;
  for (let i = 0; i < count; i++) {
    const at = 2 * (first + i);
    unpackJournalPoint(refs[at] as Buffer, refs[at + 1] as number, out, i * JOURNAL_POINT_WIDTH);
  }
}

/** The time of the point at `offset`. */
export function journalPointTime(input: Buffer, offset: number): bigint {
  return viewOf(input).getBigInt64(offset + TIME_AT, true);
}

/** The bytes read last and their view: a series' points are mostly in a few requests' bytes. */
let viewed: Buffer | null = null;
let view: DataView | null = null;

function viewOf(bytes: Buffer): DataView {
  if (bytes !== viewed || view === null) {
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    viewed = bytes;
  }
  return view;
}
