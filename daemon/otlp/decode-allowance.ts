/**
 * How many values one request may decode to. A body's cost in memory is set by what it decodes
 * to, not by its size: a small body of a million one-byte attributes decodes to many times what
 * a body of ordinary spans of the same size does (docs/perf-history/design-decisions.md, "Memory
 * bounds"). The decoders charge one unit per record, event, link, attribute (at any depth) and
 * array item as they read, so a request past its allowance is refused (413) before it is
 * decoded whole. A record (span or log record) is charged RECORD_UNITS (below).
 *
 * Decoding is synchronous and the decoder thread decodes one request at a time, so the
 * allowance of the request being decoded is module state, set around one decode call; outside
 * one, nothing is charged against a limit.
 */

/** A request decodes to more values than one body may cost; the HTTP layer answers 413. */
export class TooManyValuesError extends Error {
  override name = "TooManyValuesError";
  constructor(readonly limit: number) {
    super(
      `the request decodes to more than ${limit} records, attributes and values, the most one request may hold ` +
        "(the allowance grows with obsd's --max-body-size); send it in smaller batches, or start obsd with a larger --max-body-size",
    );
  }
}

/**
 * What one span or log record is charged, in values. Decoded and written, a bare span holds
 * about twice what an attribute with a key of its own does (its ids, times, name and row), and
 * an OTLP/JSON body of bare spans also costs the native decoder's parse buffers; charged three,
 * many small records stay as far from the memory target as many attributes do, while an
 * ordinary span, a record and a dozen attributes, is charged little more.
 */
export const RECORD_UNITS = 3;

let limit = Number.POSITIVE_INFINITY;
let charged = 0;

/** Values charged so far: two readings taken around a read give what it cost. */
export function chargedSoFar(): number {
  return charged;
}

/** Charges `units` decoded values to the request being decoded; throws past its allowance. */
export function chargeDecoded(units = 1): void {
  charged += units;
  if (charged > limit) throw new TooManyValuesError(limit);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;

/**
 * Objects in a JSON text (`{` outside strings), counted up to just past `stopAfter`. Every
 * OTLP/JSON record, KeyValue and AnyValue is an object, so this bounds what the body decodes to
 * before anything is parsed: JSON is parsed whole (natively or by JSON.parse) before the
 * decoders can charge, and an array of millions of `{}` is 3 bytes a value.
 */
export function countJsonObjects(body: Uint8Array, stopAfter: number): number {
  let objects = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE && ++objects > stopAfter) {
      break;
    }
  }
  return objects;
}

/**
 * An ordinary value is two JSON objects (a KeyValue and its AnyValue) and a record a few, so a
 * body of more objects than this many per allowed value decodes past its allowance.
 */
export const JSON_OBJECTS_PER_VALUE = 4;

/** Runs `decode` so that what it charges is taken back if it throws (a decode that is retried another way). */
export function chargedOnce<T>(decode: () => T): T {
  const before = charged;
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof TooManyValuesError)) charged = before;
    throw error;
  }
}

/** Runs one decode with an allowance of `allowed` values; returns what it decoded and how many values it held. */
export function decodeWithin<T>(allowed: number, decode: () => T): { result: T; values: number } {
  limit = allowed;
  charged = 0;
  try {
    const result = decode();
    return { result, values: charged };
  } finally {
    limit = Number.POSITIVE_INFINITY;
    charged = 0;
  }
}
