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

import type { MetricPointRecord } from "../otlp/records.js";

/** Values per point, in `metric_points` column order (series_id ... exemplars). */
export const JOURNAL_POINT_WIDTH = 11;

const NUMBERS = [4, 5, 6, 7, 8] as const;
const TEXTS = [9, 10] as const;

/** Where a point's time is, from its offset: after the optional columns' byte, series id and flags. */
const TIME_AT = 1 + 8 + 4;

/**
 * Packs points, appending each one's offset in the bytes to `offsets`: `seriesIds[i]` and
 * `details[i]` (the detail column's text) are point i's. Straight from the records: the
 * points as flat values (as `unpackJournalPoints` gives them back) would take eleven array
 * slots a point, and a heap number of its own for each double put in one.
 */
export function packJournalRecords(
  seriesIds: readonly number[],
  points: readonly MetricPointRecord[],
  details: readonly (string | null)[],
  offsets: number[],
): Buffer {
  let size = 0;
  for (let i = 0; i < points.length; i++) {
    const point = points[i] as MetricPointRecord;
    size += 1 + 8 + 4 + 8 + 8;
    if (point.value !== null) size += 8;
    if (point.count !== null) size += 8;
    if (point.sum !== null) size += 8;
    if (point.min !== null) size += 8;
    if (point.max !== null) size += 8;
    const detail = details[i] as string | null;
    if (detail !== null) size += 4 + Buffer.byteLength(detail);
    if (point.exemplars !== null) size += 4 + Buffer.byteLength(point.exemplars);
  }
  const out = Buffer.allocUnsafe(size);
  // Numbers through a DataView: Buffer's bigint writers split a bigint with bigint arithmetic,
  // allocating per call.
  const view = viewOf(out);
  let offset = 0;
  const number = (value: number | null): void => {
    if (value === null) return;
    view.setFloat64(offset, value, true);
    offset += 8;
  };
  const text = (value: string | null): void => {
    if (value === null) return;
    const length = out.write(value, offset + 4, "utf8");
    view.setUint32(offset, length, true);
    offset += 4 + length;
  };
  for (let i = 0; i < points.length; i++) {
    const point = points[i] as MetricPointRecord;
    const detail = details[i] as string | null;
    offsets.push(offset);
    // A bit per optional column, in column order: value, count, sum, min, max, detail, exemplars.
    const present =
      (point.value !== null ? 1 : 0) |
      (point.count !== null ? 2 : 0) |
      (point.sum !== null ? 4 : 0) |
      (point.min !== null ? 8 : 0) |
      (point.max !== null ? 16 : 0) |
      (detail !== null ? 32 : 0) |
      (point.exemplars !== null ? 64 : 0);
    view.setUint8(offset, present);
    view.setFloat64(offset + 1, seriesIds[i] as number, true);
    view.setUint32(offset + 9, point.flags, true);
    view.setBigInt64(offset + TIME_AT, point.timeNs, true);
    view.setBigInt64(offset + TIME_AT + 8, point.startNs, true);
    offset += TIME_AT + 16;
    number(point.value);
    number(point.count);
    number(point.sum);
    number(point.min);
    number(point.max);
    text(detail);
    text(point.exemplars);
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
