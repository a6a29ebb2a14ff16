/**
 * Unsigned varints, 7 bits a byte, low bits first (as protobuf's), for whole numbers from 0 to
 * 2^53 (exact in a JavaScript number), and their zigzag for signed ones.
 */

/** Appends `value`'s varint to `out`. */
export function pushVarint(out: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/** Maps a signed whole number to an unsigned one, small magnitudes to small numbers: 0, -1, 1, -2 to 0, 1, 2, 3. */
export const zigzag = (value: number): number => (value >= 0 ? value * 2 : -value * 2 - 1);
export const unzigzag = (value: number): number => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

/** Reads varints and raw bytes from `bytes` in order; a read past the end throws a RangeError. */
export class VarintReader {
  pos = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.bytes[this.pos++];
      if (byte === undefined) throw new RangeError("a stored number ends early");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  /** The next `length` bytes (a view, not a copy). */
  bytesOf(length: number): Uint8Array {
    if (this.pos + length > this.bytes.length) throw new RangeError("stored bytes end early");
    const view = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return view;
  }
}
