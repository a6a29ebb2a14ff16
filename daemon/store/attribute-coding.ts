/**
 * The stored form of a span's or log record's attributes (schema version 12): the JSON text the
 * decoders make (`describeAttributes`, JSON.stringify of the attribute object) with each key
 * replaced by its id in the store's `attr_keys` dictionary, so a key's name is stored once, not
 * in every row (docs/store-density.md).
 *
 * Layout: per attribute, in the text's order, an unsigned varint key id, an unsigned varint
 * byte length and the value's JSON text as UTF-8, exactly as it stood in the text. An object
 * without attributes is an empty blob. Values are kept as their JSON text, not re-encoded by
 * type, so that the text rebuilt from a blob (`attributesJson`) is the text that was coded,
 * byte for byte, whatever the value: every answer built from it stays the same.
 *
 * Since schema version 14 a value may instead be in the store's value dictionary (`attr_values`,
 * the same UTF-8 bytes): its length is then written as 0, which no value's text has, followed
 * by the value's id as an unsigned varint. Blobs written before have no such values.
 *
 * A text that is not in JSON.stringify's own form (whitespace, a key written with escapes
 * JSON.stringify would not use) cannot be rebuilt from key ids; it is kept whole after the two
 * bytes 0x80 0x00, which no coded blob starts with (the shortest varint never ends in a zero
 * byte after a continuation byte).
 */

/** The scanner met text that is not in JSON.stringify's form (the text is then kept whole). */
class NotStringifyForm extends Error {}

/**
 * Whether a key can be stored by id: its text goes through SQLite (attr_keys) and back, and a
 * string with a lone surrogate (which OTLP/JSON can carry as `\ud800`) does not come back the
 * same. Such a key's record keeps its text whole, where JSON.stringify has escaped it.
 */
export function storableKey(key: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(key);
}

/** The bytes a kept-whole text starts with. */
const WHOLE = [0x80, 0x00] as const;

/** Resolves a key, given as its JSON text (quotes included), to its dictionary id. */
export type KeyIdOf = (keyJson: string) => number;

/** Resolves a dictionary id to its key's JSON text (quotes included) as UTF-8; undefined when unknown. */
export type KeyJsonOf = (id: number) => Uint8Array | undefined;

/**
 * A value's id in the value dictionary, or -1 to keep it in the row. The value is bytes[from, to),
 * the UTF-8 of its JSON text (what a dictionary entry holds). Called for every value of at least
 * MIN_DICTIONARY_VALUE_BYTES; `bytes` is a scratch buffer, valid only during the call.
 */
export type ValueIdOf = (keyId: number, bytes: Buffer, from: number, to: number) => number;

/** Resolves a value dictionary id to the value's JSON text as UTF-8; undefined when unknown. */
export type ValueBytesOf = (id: number) => Uint8Array | undefined;

/**
 * The shortest value worth a dictionary id: a 0 and an id take 2 to 4 bytes where the value
 * took its length and itself.
 */
export const MIN_DICTIONARY_VALUE_BYTES = 4;

/**
 * Buffers reused from one row to the next, kept only up to this size: a rare huge attribute
 * gets a buffer of its own, which goes with it.
 */
const KEPT_BUFFER_BYTES = 64 * 1024;

let scratch = Buffer.allocUnsafe(4096);

function varintAt(buf: Buffer, pos: number, value: number): number {
  let v = value;
  let p = pos;
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

const varintLength = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

/**
 * Writes json[start, end) to `out` at `at` as UTF-8 (a lone surrogate as U+FFFD, as
 * Buffer.write does); returns the position after it. A loop here rather than a Buffer.write
 * per value: the values are short, and the native call per value cost more than the copy.
 */
function writeUtf8(out: Buffer, at: number, json: string, start: number, end: number): number {
  let p = at;
  for (let i = start; i < end; i++) {
    const c = json.charCodeAt(i);
    if (c < 0x80) out[p++] = c;
    else if (c < 0x800) {
      out[p++] = 0xc0 | (c >> 6);
      out[p++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const low = json.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        const point = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        out[p++] = 0xf0 | (point >> 18);
        out[p++] = 0x80 | ((point >> 12) & 0x3f);
        out[p++] = 0x80 | ((point >> 6) & 0x3f);
        out[p++] = 0x80 | (point & 0x3f);
        i++;
      } else p = writeReplacement(out, p);
    } else if (c >= 0xd800 && c <= 0xdfff) p = writeReplacement(out, p);
    else {
      out[p++] = 0xe0 | (c >> 12);
      out[p++] = 0x80 | ((c >> 6) & 0x3f);
      out[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}

function writeReplacement(out: Buffer, at: number): number {
  out[at] = 0xef;
  out[at + 1] = 0xbf;
  out[at + 2] = 0xbd;
  return at + 3;
}

/** The index just past the JSON string starting at `pos` (a `"`). */
function stringEnd(json: string, pos: number): number {
  let i = pos + 1;
  for (;;) {
    const c = json.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i += 2;
    else if (Number.isNaN(c)) throw new NotStringifyForm("unterminated string");
    else i++;
  }
}

/** The index just past the JSON value starting at `pos`. */
function valueEnd(json: string, pos: number): number {
  const first = json.charCodeAt(pos);
  if (first === 0x22) return stringEnd(json, pos);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    let i = pos;
    for (;;) {
      const c = json.charCodeAt(i);
      if (c === 0x22) {
        i = stringEnd(json, i);
        continue;
      }
      if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      } else if (Number.isNaN(c)) throw new NotStringifyForm("unterminated value");
      i++;
    }
  }
  // A number, true, false or null: up to the next separator.
  let i = pos;
  for (;;) {
    const c = json.charCodeAt(i);
    if (c === 0x2c || c === 0x7d) break;
    if (Number.isNaN(c) || c <= 0x20) throw new NotStringifyForm("not in JSON.stringify's form");
    i++;
  }
  if (i === pos) throw new NotStringifyForm("missing value");
  return i;
}

/**
 * Copies the JSON value at json[pos] to `out` at `at` as UTF-8, in the same pass that finds its
 * end for the usual values (a string, a number, true, false, null); returns where the value
 * ends: in `out` as the result, in `json` in `copiedEnd` (no object per value).
 */
function copyValue(out: Buffer, at: number, json: string, pos: number): number {
  const first = json.charCodeAt(pos);
  if (first === 0x7b || first === 0x5b) {
    copiedEnd = valueEnd(json, pos);
    return writeUtf8(out, at, json, pos, copiedEnd);
  }
  let p = at;
  let i = pos;
  if (first === 0x22) {
    out[p++] = 0x22;
    i++;
    for (;;) {
      const c = json.charCodeAt(i);
      if (c === 0x22) {
        out[p++] = 0x22;
        copiedEnd = i + 1;
        return p;
      }
      if (c >= 0x80) {
        // Past ASCII: the rest of the string in the general way.
        copiedEnd = stringEnd(json, pos);
        return writeUtf8(out, p, json, i, copiedEnd);
      }
      if (Number.isNaN(c)) throw new NotStringifyForm("unterminated string");
      out[p++] = c;
      if (c === 0x5c) {
        const escaped = json.charCodeAt(i + 1);
        if (!(escaped < 0x80)) throw new NotStringifyForm("not in JSON.stringify's form");
        out[p++] = escaped;
        i += 2;
      } else i++;
    }
  }
  // A number, true, false or null: up to the next separator.
  for (;;) {
    const c = json.charCodeAt(i);
    if (c === 0x2c || c === 0x7d) break;
    if (Number.isNaN(c) || c <= 0x20 || c >= 0x80) throw new NotStringifyForm("not in JSON.stringify's form");
    out[p++] = c;
    i++;
  }
  if (i === pos) throw new NotStringifyForm("missing value");
  copiedEnd = i;
  return p;
}

/** Where the last value copyValue copied ends in its text. */
let copiedEnd = 0;

function codeWhole(json: string): Buffer {
  const text = Buffer.from(json, "utf8");
  const out = Buffer.allocUnsafe(text.length + WHOLE.length);
  out[0] = WHOLE[0];
  out[1] = WHOLE[1];
  text.copy(out, WHOLE.length);
  return out;
}

/**
 * The keys of the last text coded, by position, with their ids: records of one kind mostly
 * carry the same keys in the same order, and a key that matches the one at its position last
 * time costs a comparison instead of a slice and a lookup. Owned by whoever owns the ids, and
 * cleared with them (the ids of a rolled-back transaction are gone).
 */
export class LastKeys {
  keys: string[] = [];
  ids: number[] = [];

  clear(): void {
    this.keys = [];
    this.ids = [];
  }
}

/**
 * Codes an attributes object's JSON text. `keyIdOf` gets each key as its JSON text and returns
 * its id, or -1 when that text is not how JSON.stringify writes the key (the text is then kept
 * whole). `valueIdOf`, when given, may put a value in the value dictionary.
 */
export function codeAttributes(
  json: string,
  keyIdOf: KeyIdOf,
  last: LastKeys = new LastKeys(),
  valueIdOf?: ValueIdOf,
): Buffer {
  if (json === "{}") return Buffer.alloc(0);
  // At most 3 bytes of UTF-8 per UTF-16 unit, plus 8 bytes of varints per attribute (each
  // attribute has at least the 4 characters `"":x`).
  const room = json.length * 3 + 16;
  let out = scratch;
  if (out.length < room) {
    out = Buffer.allocUnsafe(Math.max(room, out.length * 2));
    if (out.length <= KEPT_BUFFER_BYTES) scratch = out;
  }
  let p = 0;
  try {
    if (json.charCodeAt(0) !== 0x7b) return codeWhole(json);
    let pos = 1;
    for (let index = 0; ; index++) {
      if (json.charCodeAt(pos) !== 0x22) return codeWhole(json);
      // A JSON string ends at its first unescaped quote, so the same characters from `pos` are
      // the same key.
      const seen = last.keys[index];
      let keyEnd: number;
      let id: number;
      if (seen !== undefined && json.startsWith(seen, pos)) {
        keyEnd = pos + seen.length;
        id = last.ids[index] as number;
      } else {
        keyEnd = stringEnd(json, pos);
        const keyJson = json.slice(pos, keyEnd);
        id = keyIdOf(keyJson);
        last.keys[index] = keyJson;
        last.ids[index] = id;
      }
      if (json.charCodeAt(keyEnd) !== 0x3a) return codeWhole(json);
      if (id < 0) return codeWhole(json);
      const start = keyEnd + 1;
      p = varintAt(out, p, id);
      // The value's bytes go one byte after where a one-byte length would end; a longer length
      // moves them up.
      const lengthAt = p;
      const at = copyValue(out, lengthAt + 1, json, start);
      const end = copiedEnd;
      const written = at - (lengthAt + 1);
      const valueId =
        valueIdOf !== undefined && written >= MIN_DICTIONARY_VALUE_BYTES ? valueIdOf(id, out, lengthAt + 1, at) : -1;
      if (valueId >= 0) {
        // 0 and the id take no more room than the length and the value did (ids stay below 2^21,
        // the dictionary's bound, so at most 1 + 3 bytes for at least 1 + 4).
        p = varintAt(out, varintAt(out, lengthAt, 0), valueId);
      } else {
        const lengthBytes = varintLength(written);
        if (lengthBytes > 1) out.copyWithin(lengthAt + lengthBytes, lengthAt + 1, lengthAt + 1 + written);
        varintAt(out, lengthAt, written);
        p = lengthAt + lengthBytes + written;
      }
      const next = json.charCodeAt(end);
      if (next === 0x7d) {
        if (end !== json.length - 1) return codeWhole(json);
        break;
      }
      if (next !== 0x2c) return codeWhole(json);
      pos = end + 1;
    }
  } catch (error) {
    // Only the scanner's own finding; an error of keyIdOf or valueIdOf (a failed dictionary
    // insert) is the caller's.
    if (error instanceof NotStringifyForm) return codeWhole(json);
    throw error;
  }
  const coded = Buffer.allocUnsafe(p);
  out.copy(coded, 0, 0, p);
  return coded;
}

/** Reads a varint at `state.pos`, moving it on. */
function readVarint(bytes: Uint8Array, state: { pos: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[state.pos++];
    if (b === undefined) throw new Error("truncated attributes");
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result;
    shift += 7;
  }
}

const isWhole = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === WHOLE[0] && bytes[1] === WHOLE[1];

let rebuilt = Buffer.allocUnsafe(4096);

/** Where a value's bytes are: a range of the row's blob, or a whole dictionary entry. */
interface ValueAt {
  source: Uint8Array;
  start: number;
  end: number;
}

/**
 * Reads the value at `state.pos` (its length, then its bytes or its dictionary id) into `at`,
 * moving `state.pos` past it.
 */
function readValue(bytes: Uint8Array, state: { pos: number }, valueBytesOf: ValueBytesOf, at: ValueAt): void {
  const length = readVarint(bytes, state);
  if (length === 0) {
    const id = readVarint(bytes, state);
    const value = valueBytesOf(id);
    if (value === undefined) throw new UnknownValueError(id);
    at.source = value;
    at.start = 0;
    at.end = value.length;
    return;
  }
  at.source = bytes;
  at.start = state.pos;
  at.end = state.pos + length;
  state.pos += length;
}

/**
 * The JSON text a blob was coded from. `keyJsonOf` gives each key's JSON text as UTF-8 bytes,
 * `valueBytesOf` each dictionary value's. The text is assembled in one buffer and read as a
 * string once (one string a row, not one a value). Throws when the blob names a key or value
 * the caller's dictionary does not know (it is older than the row).
 */
export function attributesJson(bytes: Uint8Array, keyJsonOf: KeyJsonOf, valueBytesOf: ValueBytesOf): string {
  if (isWhole(bytes)) return textOf(bytes, WHOLE.length, bytes.length);
  const state = { pos: 0 };
  const value: ValueAt = { source: bytes, start: 0, end: 0 };
  let p = 0;
  let out = rebuilt;
  out[p++] = 0x7b;
  while (state.pos < bytes.length) {
    const id = readVarint(bytes, state);
    const key = keyJsonOf(id);
    if (key === undefined) throw new UnknownKeyError(id);
    readValue(bytes, state, valueBytesOf, value);
    const { source, start, end } = value;
    // Room for the key, the value, a comma, a colon and the closing brace.
    const needed = p + key.length + (end - start) + 3;
    if (needed > out.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, out.length * 2));
      out.copy(larger, 0, 0, p);
      out = larger;
      if (larger.length <= KEPT_BUFFER_BYTES) rebuilt = larger;
    }
    if (p > 1) out[p++] = 0x2c;
    for (let i = 0; i < key.length; i++) out[p++] = key[i] as number;
    out[p++] = 0x3a;
    for (let i = start; i < end; i++) out[p++] = source[i] as number;
  }
  out[p++] = 0x7d;
  return out.toString("utf8", 0, p);
}

/**
 * Visits a coded blob's attributes in order: `visit` gets each key id and its value, either a
 * dictionary id (`valueId` at least 0; resolve it only if needed) or, with `valueId` -1, the
 * blob's bytes [start, end); it returns true to stop. A kept-whole text has no ids: returns
 * false without a visit.
 */
export function forEachAttribute(
  bytes: Uint8Array,
  visit: (keyId: number, valueId: number, start: number, end: number) => boolean,
): boolean {
  if (isWhole(bytes)) return false;
  const state = { pos: 0 };
  while (state.pos < bytes.length) {
    const keyId = readVarint(bytes, state);
    const length = readVarint(bytes, state);
    if (length === 0) {
      if (visit(keyId, readVarint(bytes, state), 0, 0)) return true;
      continue;
    }
    const start = state.pos;
    state.pos += length;
    if (visit(keyId, -1, start, state.pos)) return true;
  }
  return true;
}

/** The kept-whole JSON text of a blob, or undefined when it is coded. */
export function wholeText(bytes: Uint8Array): string | undefined {
  return isWhole(bytes) ? textOf(bytes, WHOLE.length, bytes.length) : undefined;
}

/** The UTF-8 text of a byte range of a blob. */
export function textOf(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8");
}

/** A coded blob names a key id its reader's dictionary does not hold. */
export class UnknownKeyError extends Error {
  constructor(readonly id: number) {
    super(`attribute key id ${id} is not in the key dictionary`);
  }
}

/** A coded blob names a value id its reader's dictionary does not hold. */
export class UnknownValueError extends Error {
  constructor(readonly id: number) {
    super(`attribute value id ${id} is not in the value dictionary`);
  }
}
