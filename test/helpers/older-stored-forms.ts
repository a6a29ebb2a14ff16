/**
 * Stored forms of earlier schema versions, made from today's, for copies of a store at an older
 * version (store.ts copyAtVersion). Written apart from the store's own code, from the layouts
 * its comments describe, so that an upgrade test reads what an older obs really wrote.
 */

function pushVarint(out: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/** Reads varints from `bytes` from `at.pos` on. */
function readVarint(bytes: Uint8Array, at: { pos: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[at.pos++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}

const unzigzag = (value: number): number => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

/**
 * Coded attributes as versions 12 to 19 wrote them (per attribute: key id, length, the value's
 * JSON text; or key id, 0, dictionary id) from the tagged form of version 20 (a 0 byte, then
 * per attribute a tag `payload * 8 + named * 4 + kind`, and when named the key id's difference
 * from the one after the key before, zigzag). Anything else is returned as it is.
 */
export function attributesBeforeV20(stored: unknown): unknown {
  if (!(stored instanceof Uint8Array) || stored.length === 0 || stored[0] !== 0) return stored;
  const out: number[] = [];
  const at = { pos: 1 };
  let key = 0;
  while (at.pos < stored.length) {
    const tag = readVarint(stored, at);
    const kind = tag % 4;
    const named = Math.floor(tag / 4) % 2 === 1;
    const payload = Math.floor(tag / 8);
    key += 1 + (named ? unzigzag(readVarint(stored, at)) : 0);
    pushVarint(out, key);
    if (kind === 3) {
      out.push(0);
      pushVarint(out, payload);
      continue;
    }
    let text: Uint8Array;
    if (kind === 2) text = Buffer.from(String(unzigzag(payload)));
    else {
      text = stored.subarray(at.pos, at.pos + payload);
      at.pos += payload;
      if (kind === 1) text = Buffer.concat([Buffer.from('"'), text, Buffer.from('"')]);
    }
    pushVarint(out, text.length);
    for (const byte of text) out.push(byte);
  }
  return Buffer.from(out);
}

/**
 * A span rollup's histogram as versions 2 to 20 kept it, (bucket, count) as little-endian 32-bit
 * pairs, from version 21's varints (each bucket's distance from the one before less 1, its count).
 */
export function histogramBeforeV21(stored: unknown): unknown {
  if (!(stored instanceof Uint8Array)) return stored;
  const pairs: number[] = [];
  const at = { pos: 0 };
  let bucket = -1;
  while (at.pos < stored.length) {
    bucket += readVarint(stored, at) + 1;
    pairs.push(bucket, readVarint(stored, at));
  }
  const out = Buffer.alloc(pairs.length * 4);
  for (const [i, value] of pairs.entries()) out.writeUInt32LE(value, i * 4);
  return out;
}

/**
 * A span rollup's slowest spans as versions 2 to 20 kept them, JSON text of [duration, span id,
 * trace id] in hex, from version 21's bytes (zigzag duration, then each id after its length).
 */
export function slowestBeforeV21(stored: unknown): unknown {
  if (!(stored instanceof Uint8Array)) return stored;
  const slowest: [number, string, string][] = [];
  const at = { pos: 0 };
  while (at.pos < stored.length) {
    const duration = unzigzag(readVarint(stored, at));
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const length = stored[at.pos++] as number;
      ids.push(Buffer.from(stored.subarray(at.pos, at.pos + length)).toString("hex"));
      at.pos += length;
    }
    slowest.push([duration, ids[0] as string, ids[1] as string]);
  }
  return JSON.stringify(slowest);
}
