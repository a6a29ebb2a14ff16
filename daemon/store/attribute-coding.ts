/**
 * The stored form of a span's or log record's attributes: the JSON text the decoders make
 * (`describeAttributes`, JSON.stringify of the attribute object) with each key replaced by its
 * id in the store's `attr_keys` dictionary, so a key's name is stored once, not in every row
 * (docs/store-density.md). The text rebuilt from a blob (`attributesJson`) is the text that was
 * coded, byte for byte, whatever the value: every answer built from it stays the same.
 *
 * Layout since schema version 20 (what codeAttributes writes): a 0 byte, then per attribute, in
 * the text's order, one unsigned varint tag, `payload * 8 + named * 4 + kind`:
 * - `named` 0: the key's id is 1 past the attribute before's (the first attribute's "before" is
 *   0): records of one kind mostly carry keys made together, in order; `named` 1: the key's id
 *   less the one before's less 1 follows the tag as a zigzag varint;
 * - `kind` says what the value is:
 *   0 `RAW`: `payload` bytes of the value's JSON text, as it stood in the text;
 *   1 `STRING`: a JSON string, `payload` bytes of its text between the quotes (the quotes are
 *     put back when read);
 *   2 `INTEGER`: a JSON number written in plain decimal, at most 14 digits, no leading zero, not
 *     `-0` (its text is exactly the decimal of the number), as the zigzag of the number;
 *   3 `DICTIONARY`: the id of the value's JSON text in the value dictionary (`attr_values`,
 *     schema version 14).
 * A tag stays below 2^53 (an integer's zigzag below 2 * 10^14), exact in a JavaScript number. A
 * payload below 16 (a string of up to 15 bytes, a dictionary id up to 15) makes a one-byte tag.
 * An object without attributes is an empty blob.
 *
 * Blobs written by schema versions 12 to 19 are read as they are: per attribute an unsigned
 * varint key id, an unsigned varint byte length and the value's JSON text; a length of 0 (which
 * no value's text has) is followed by the value's dictionary id instead. Such a blob never
 * starts with a 0 byte: key ids start at 1.
 *
 * A text that is not in JSON.stringify's own form (whitespace, a key written with escapes
 * JSON.stringify would not use) cannot be rebuilt from key ids; it is kept whole after the two
 * bytes 0x80 0x00, which no coded blob starts with (the shortest varint never ends in a zero
 * byte after a continuation byte).
 */

import { hasLoneSurrogate } from "../../shared/lone-surrogate.js";
import { unzigzag, zigzag } from "../../shared/varint.js";

/** The scanner met text that is not in JSON.stringify's form (the text is then kept whole). */
class NotStringifyForm extends Error {}

/**
 * Whether a key can be stored by id: its text goes through SQLite (attr_keys) and back, and a
 * string with a lone surrogate (which OTLP/JSON can carry as `\ud800`) does not come back the
 * same. Such a key's record keeps its text whole, where JSON.stringify has escaped it.
 */
export function storableKey(key: string): boolean {
  return !hasLoneSurrogate(key);
}

/** The bytes a kept-whole text starts with. */
const WHOLE = [0x80, 0x00] as const;
/** The byte a tagged blob (schema version 20) starts with. */
const TAGGED = 0x00;

/** A value's kind, in the low two bits of its tag. */
const RAW = 0;
const STRING = 1;
const INTEGER = 2;
const DICTIONARY = 3;
/** The tag's bit saying that the key's difference follows it. */
const KEY_NAMED = 4;
/** The most digits of a number kept as an INTEGER: its tag stays below 2^53. */
const MAX_INTEGER_DIGITS = 14;
/**
 * How far past an attribute's start its value's bytes are copied while its kind is unknown:
 * room for the longest tag (8 bytes) and key difference (5 bytes) before them.
 */
const STAGE = 13;

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

/** varintAt for any number below 2^53. */
function numberAt(buf: Buffer, pos: number, value: number): number {
  if (value < 0x80000000) return varintAt(buf, pos, value);
  let v = value;
  let p = pos;
  while (v >= 0x80) {
    buf[p++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[p++] = v;
  return p;
}

/**
 * The zigzag of the number whose JSON text is bytes[from, to), when that text is plain decimal
 * of at most MAX_INTEGER_DIGITS digits, no leading zero and not `-0` (String() of the number
 * gives the text back); otherwise -1.
 */
function integerZigzag(bytes: Buffer, from: number, to: number): number {
  let i = from;
  const negative = bytes[i] === 0x2d;
  if (negative) i++;
  const digits = to - i;
  if (digits < 1 || digits > MAX_INTEGER_DIGITS) return -1;
  if (bytes[i] === 0x30 && (digits > 1 || negative)) return -1;
  let value = 0;
  for (; i < to; i++) {
    const digit = (bytes[i] as number) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return negative ? value * 2 - 1 : value * 2;
}

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
  // At most 3 bytes of UTF-8 per UTF-16 unit; a tag and a key difference take at most 13 bytes,
  // for an attribute of at least the 5 characters `"":x,` (or a 14-digit number's more), and
  // the last value is copied STAGE bytes on.
  const room = json.length * 3 + 2 * STAGE + 16;
  let out = scratch;
  if (out.length < room) {
    out = Buffer.allocUnsafe(Math.max(room, out.length * 2));
    if (out.length <= KEPT_BUFFER_BYTES) scratch = out;
  }
  let p = 0;
  out[p++] = TAGGED;
  let previousKey = 0;
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
      // The value is copied STAGE bytes on; once its kind is known, its tag and key go at p and
      // what the row keeps of it moves down behind them.
      const from = p + STAGE;
      const to = copyValue(out, from, json, start);
      const end = copiedEnd;
      const valueId =
        valueIdOf !== undefined && to - from >= MIN_DICTIONARY_VALUE_BYTES ? valueIdOf(id, out, from, to) : -1;
      let kind = RAW;
      let payload = to - from;
      let keepFrom = from;
      let keepTo = to;
      if (valueId >= 0) {
        kind = DICTIONARY;
        payload = valueId;
        keepTo = from;
      } else {
        const integer = integerZigzag(out, from, to);
        if (integer >= 0) {
          kind = INTEGER;
          payload = integer;
          keepTo = from;
        } else if (out[from] === 0x22) {
          kind = STRING;
          keepFrom = from + 1;
          keepTo = to - 1;
          payload = keepTo - keepFrom;
        }
      }
      const keyStep = id - previousKey - 1;
      previousKey = id;
      p = numberAt(out, p, payload * 8 + (keyStep === 0 ? 0 : KEY_NAMED) + kind);
      if (keyStep !== 0) p = numberAt(out, p, zigzag(keyStep));
      if (keepTo - keepFrom > 64) {
        out.copyWithin(p, keepFrom, keepTo);
        p += keepTo - keepFrom;
      } else for (let i = keepFrom; i < keepTo; i++) out[p++] = out[i] as number;
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

/** Where a reader is in a coded blob. */
interface ReadState {
  pos: number;
  /** The blob is tagged (schema version 20), not in the layout of versions 12 to 19. */
  tagged: boolean;
  /** The key id of the attribute read last (0 before the first). */
  key: number;
}

/** One attribute as read from a blob (one object per blob, refilled for each attribute). */
interface ReadAttribute {
  keyId: number;
  kind: number;
  /** INTEGER: the number; DICTIONARY: the value's id. */
  value: number;
  /** RAW and STRING: the bytes the blob keeps, [start, end). */
  start: number;
  end: number;
}

function readState(bytes: Uint8Array): ReadState {
  const tagged = bytes.length > 0 && bytes[0] === TAGGED;
  return { pos: tagged ? 1 : 0, tagged, key: 0 };
}

/** Reads the attribute at `state.pos` into `at`, moving `state.pos` past it. */
function readAttribute(bytes: Uint8Array, state: ReadState, at: ReadAttribute): void {
  if (!state.tagged) {
    at.keyId = readVarint(bytes, state);
    const length = readVarint(bytes, state);
    if (length === 0) {
      at.kind = DICTIONARY;
      at.value = readVarint(bytes, state);
      return;
    }
    at.kind = RAW;
    at.start = state.pos;
    at.end = state.pos + length;
    state.pos = at.end;
    return;
  }
  const tag = readVarint(bytes, state);
  const kind = tag % 4;
  const payload = Math.floor(tag / 8);
  state.key += 1 + ((tag & KEY_NAMED) === 0 ? 0 : unzigzag(readVarint(bytes, state)));
  at.keyId = state.key;
  at.kind = kind;
  if (kind === RAW || kind === STRING) {
    at.start = state.pos;
    at.end = state.pos + payload;
    state.pos = at.end;
  } else at.value = kind === INTEGER ? unzigzag(payload) : payload;
}

/**
 * The JSON text a blob was coded from. `keyJsonOf` gives each key's JSON text as UTF-8 bytes,
 * `valueBytesOf` each dictionary value's. The text is assembled in one buffer and read as a
 * string once (one string a row, not one a value). Throws when the blob names a key or value
 * the caller's dictionary does not know (it is older than the row).
 */
export function attributesJson(bytes: Uint8Array, keyJsonOf: KeyJsonOf, valueBytesOf: ValueBytesOf): string {
  if (isWhole(bytes)) return textOf(bytes, WHOLE.length, bytes.length);
  const state = readState(bytes);
  const at: ReadAttribute = { keyId: 0, kind: RAW, value: 0, start: 0, end: 0 };
  let p = 0;
  let out = rebuilt;
  out[p++] = 0x7b;
  while (state.pos < bytes.length) {
    readAttribute(bytes, state, at);
    const key = keyJsonOf(at.keyId);
    if (key === undefined) throw new UnknownKeyError(at.keyId);
    let source = bytes;
    let start = at.start;
    let end = at.end;
    let integer = "";
    if (at.kind === DICTIONARY) {
      const value = valueBytesOf(at.value);
      if (value === undefined) throw new UnknownValueError(at.value);
      source = value;
      start = 0;
      end = value.length;
    } else if (at.kind === INTEGER) {
      integer = String(at.value);
      start = end = 0;
    } else if (end > bytes.length) throw new Error("truncated attributes");
    // Room for the key, the value (with its quotes, or the integer's digits), a comma, a colon
    // and the closing brace.
    const needed = p + key.length + (end - start) + integer.length + 5;
    if (needed > out.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, out.length * 2));
      out.copy(larger, 0, 0, p);
      out = larger;
      if (larger.length <= KEPT_BUFFER_BYTES) rebuilt = larger;
    }
    if (p > 1) out[p++] = 0x2c;
    for (let i = 0; i < key.length; i++) out[p++] = key[i] as number;
    out[p++] = 0x3a;
    if (at.kind === STRING) out[p++] = 0x22;
    for (let i = start; i < end; i++) out[p++] = source[i] as number;
    for (let i = 0; i < integer.length; i++) out[p++] = integer.charCodeAt(i);
    if (at.kind === STRING) out[p++] = 0x22;
  }
  out[p++] = 0x7d;
  return out.toString("utf8", 0, p);
}

/**
 * The JSON text of the value of the first attribute of a coded blob whose key id `isKey`
 * accepts; undefined when there is none, or when the blob is a kept-whole text (wholeText).
 * `valueTextOf` gives a dictionary value's text (undefined when unknown: this throws).
 */
export function attributeValueJson(
  bytes: Uint8Array,
  isKey: (keyId: number) => boolean,
  valueTextOf: (id: number) => string | undefined,
): string | undefined {
  if (isWhole(bytes)) return undefined;
  const state = readState(bytes);
  const at: ReadAttribute = { keyId: 0, kind: RAW, value: 0, start: 0, end: 0 };
  while (state.pos < bytes.length) {
    readAttribute(bytes, state, at);
    if (!isKey(at.keyId)) continue;
    switch (at.kind) {
      case DICTIONARY: {
        const text = valueTextOf(at.value);
        if (text === undefined) throw new UnknownValueError(at.value);
        return text;
      }
      case INTEGER:
        return String(at.value);
      case STRING:
        return `"${textOf(bytes, at.start, at.end)}"`;
      default:
        return textOf(bytes, at.start, at.end);
    }
  }
  return undefined;
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
