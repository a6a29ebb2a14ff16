/**
 * A binary form of a stored attributes object (the JSON text a span or log row holds), for
 * bench/density-layout.ts: how much a dictionary-coded form saves against the text, and what
 * it costs to write and to turn back into exactly the same text.
 *
 * Layout: varint attribute count, then per attribute varint key id (the store's `attr_keys`
 * ids), a tag byte and the value:
 *   0 dictionary string: varint value id (a per-key value dictionary)
 *   1 inline string: varint byte length, UTF-8
 *   2 integer: zig-zag varint (safe integers only)
 *   3 double: 8 bytes little-endian
 *   4 false, 5 true, 6 null
 *   7 anything else (arrays, objects): varint byte length, its JSON text
 * Decoding writes the JSON text back, key order kept, so the answers built from it are the
 * same bytes; the bench checks that on every row.
 */

const TAG = { dict: 0, inline: 1, int: 2, double: 3, false: 4, true: 5, null: 6, json: 7 } as const;

/** Dictionaries an encoder fills and a decoder reads: key ids, and value ids per key. */
export class AttributeDictionary {
  readonly keys = new Map<string, number>();
  readonly keyNames: string[] = [];
  readonly values = new Map<string, number>();
  readonly valueTexts: string[] = [];

  keyId(key: string): number {
    let id = this.keys.get(key);
    if (id === undefined) {
      id = this.keyNames.length;
      this.keyNames.push(key);
      this.keys.set(key, id);
    }
    return id;
  }

  valueId(keyId: number, value: string): number {
    const composite = `${keyId}\0${value}`;
    let id = this.values.get(composite);
    if (id === undefined) {
      id = this.valueTexts.length;
      this.valueTexts.push(value);
      this.values.set(composite, id);
    }
    return id;
  }
}

class ByteWriter {
  private buf = Buffer.allocUnsafe(512);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  varint(n: number): void {
    this.room(10);
    let v = n;
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  text(s: string): void {
    const n = Buffer.byteLength(s);
    this.varint(n);
    this.room(n);
    this.length += this.buf.write(s, this.length, "utf8");
  }

  double(d: number): void {
    this.room(8);
    this.buf.writeDoubleLE(d, this.length);
    this.length += 8;
  }

  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (n: number) => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/**
 * Encodes the attributes JSON text; `coded(key)` says whether the key's string values go to the
 * dictionary (else they are stored inline).
 */
export function encodeAttributes(json: string, dict: AttributeDictionary, coded: (key: string) => boolean): Buffer {
  const object = JSON.parse(json) as Record<string, unknown>;
  const out = new ByteWriter();
  const keys = Object.keys(object);
  out.varint(keys.length);
  for (const key of keys) {
    const keyId = dict.keyId(key);
    out.varint(keyId);
    const value = object[key];
    if (typeof value === "string") {
      if (coded(key)) {
        out.byte(TAG.dict);
        out.varint(dict.valueId(keyId, value));
      } else {
        out.byte(TAG.inline);
        out.text(value);
      }
    } else if (typeof value === "number") {
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
        out.byte(TAG.int);
        out.varint(zigzag(value));
      } else {
        out.byte(TAG.double);
        out.double(value);
      }
    } else if (value === true || value === false) out.byte(value ? TAG.true : TAG.false);
    else if (value === null) out.byte(TAG.null);
    else {
      out.byte(TAG.json);
      out.text(JSON.stringify(value));
    }
  }
  return out.done();
}

/** The JSON text `encodeAttributes` was given, rebuilt. */
export function decodeAttributes(bytes: Buffer, dict: AttributeDictionary): string {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[pos++] as number;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
  };
  const text = (): string => {
    const n = varint();
    const s = bytes.toString("utf8", pos, pos + n);
    pos += n;
    return s;
  };
  const count = varint();
  let out = "{";
  for (let i = 0; i < count; i++) {
    if (i > 0) out += ",";
    out += `${JSON.stringify(dict.keyNames[varint()])}:`;
    const tag = bytes[pos++];
    switch (tag) {
      case TAG.dict:
        out += JSON.stringify(dict.valueTexts[varint()]);
        break;
      case TAG.inline:
        out += JSON.stringify(text());
        break;
      case TAG.int:
        out += String(unzigzag(varint()));
        break;
      case TAG.double:
        out += JSON.stringify(bytes.readDoubleLE(pos));
        pos += 8;
        break;
      case TAG.false:
        out += "false";
        break;
      case TAG.true:
        out += "true";
        break;
      case TAG.null:
        out += "null";
        break;
      default:
        out += text();
    }
  }
  return `${out}}`;
}
