import protobuf from "protobufjs";
import type { ByteRun } from "./byte-runs.js";
import { TooManyValuesError } from "./decode-allowance.js";
import { PayloadError } from "./payload-error.js";

/** Protobuf wire types (the low three bits of a field's tag). */
export const WIRE = { VARINT: 0, FIXED64: 1, LENGTH: 2, FIXED32: 5 } as const;

/**
 * A field that could not be read, and where: `path` is relative to the message being read and
 * grows as the error passes up through the messages that contain it (see `within`), so paths
 * cost nothing unless something is wrong.
 */
export class FieldError extends PayloadError {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/** Prefixes a FieldError's path with the segment that contains it; other errors pass unchanged. */
export function within(error: unknown, segment: string): unknown {
  if (!(error instanceof FieldError)) return error;
  const path = error.path === "" || error.path.startsWith("[") ? segment + error.path : `${segment}.${error.path}`;
  return new FieldError(path, error.detail);
}

/**
 * Reads OTLP/protobuf fields straight from the body: protobufjs's Reader does the wire
 * primitives (varints, lengths, strict UTF-8, skipping unknown fields), and values come out
 * as what the records hold (hex ids, bigint times, base64 bytes) without building a message
 * object, a Long or a Buffer view for each of them.
 */
export class WireReader {
  private readonly reader: protobuf.Reader;
  private readonly buf: Buffer;
  private lastRun: { -readonly [K in keyof ByteRun]: ByteRun[K] } | null = null;

  constructor(body: Buffer) {
    this.reader = protobuf.Reader.create(body);
    this.buf = body;
  }

  get pos(): number {
    return this.reader.pos;
  }

  /** The body's length: where the top-level message ends. */
  get length(): number {
    return this.reader.len;
  }

  /** Moves to `pos` (a position this reader has already passed), to read a value again. */
  seek(pos: number): void {
    this.reader.pos = pos;
  }

  /** The next field's tag; call only while `pos` is before the message's end. */
  tag(): number {
    return this.reader.tag();
  }

  /** Reads a length prefix and returns where the length-delimited value ends. */
  end(): number {
    const length = this.reader.uint32();
    const end = this.reader.pos + length;
    if (end > this.reader.len)
      throw new RangeError(`index out of range: ${this.reader.pos} + ${length} > ${this.reader.len}`);
    return end;
  }

  /** Checks that a message ended exactly at its declared end. */
  expectEnd(end: number): void {
    if (this.reader.pos !== end)
      throw new RangeError(`a field ran past its message's end (${this.reader.pos} > ${end})`);
  }

  /** Skips the value of an unknown field, given its tag (groups are checked for their end tag). */
  skip(tag: number): void {
    this.reader.skipType(tag & 7, 0, tag >>> 3);
  }

  /** A varint as an unsigned 32-bit number (enums too: a negative one reads as its two's complement). */
  uint32(): number {
    return this.reader.uint32();
  }

  /** A zig-zag varint as a signed 32-bit number. */
  sint32(): number {
    return this.reader.sint32();
  }

  bool(): boolean {
    return this.reader.bool();
  }

  fixed32(): number {
    return this.reader.fixed32();
  }

  double(): number {
    return this.reader.double();
  }

  /** A fixed64 as an exact unsigned bigint. */
  fixed64(): bigint {
    const pos = this.reader.pos;
    if (pos + 8 > this.reader.len) throw new RangeError(`index out of range: ${pos} + 8 > ${this.reader.len}`);
    this.reader.pos = pos + 8;
    return this.buf.readBigUInt64LE(pos);
  }

  /** An sfixed64 as an exact signed bigint. */
  sfixed64(): bigint {
    return BigInt.asIntN(64, this.fixed64());
  }

  /** A uint64 varint as an exact bigint (bits past 64 dropped, as protobuf does). */
  uint64(): bigint {
    const buf = this.buf;
    const len = this.reader.len;
    let pos = this.reader.pos;
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= len) throw new RangeError("index out of range: a varint ran past the end");
      if (shift > 63n) throw new RangeError("invalid varint encoding: longer than 10 bytes");
      const byte = buf[pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    this.reader.pos = pos;
    return value & 0xffff_ffff_ffff_ffffn;
  }

  /** An int64 varint: a number when exactly representable, else its decimal text. */
  int64(): number | string {
    const buf = this.buf;
    const len = this.reader.len;
    let pos = this.reader.pos;
    let low = 0;
    let high = 0;
    let shift = 0;
    // The low 28 bits, then the rest; negative values take all ten bytes.
    for (; shift < 28; shift += 7) {
      if (pos >= len) throw new RangeError("index out of range: a varint ran past the end");
      const byte = buf[pos++] as number;
      low |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.reader.pos = pos;
        return low;
      }
    }
    low >>>= 0;
    for (shift = 0; ; shift += 7) {
      if (pos >= len) throw new RangeError("index out of range: a varint ran past the end");
      if (shift > 35) throw new RangeError("invalid varint encoding: longer than 10 bytes");
      const byte = buf[pos++] as number;
      high += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    this.reader.pos = pos;
    // low holds bits 0-27, high bits 28 and up; a tenth byte may carry bits past 64, dropped as protobuf does.
    const unsigned = ((BigInt(high) << 28n) | BigInt(low)) & 0xffff_ffff_ffff_ffffn;
    const value = BigInt.asIntN(64, unsigned);
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }

  /** A string field, refused unless it is valid UTF-8. */
  string(): string {
    return this.reader.stringVerify();
  }

  /** A bytes field as lowercase hex, or null when empty; `size` bytes or a FieldError. */
  id(size: number, field: string): string | null {
    const end = this.end();
    const start = this.reader.pos;
    this.reader.pos = end;
    if (end === start) return null;
    if (end - start !== size) throw new FieldError(field, `expected ${size} bytes, got ${end - start}`);
    return this.buf.toString("hex", start, end);
  }

  /**
   * The body's bytes from `start` to `end`, as a key (byte-runs.ts). One object per reader,
   * moved by each call: valid until the next.
   */
  run(start: number, end: number): ByteRun {
    let run = this.lastRun;
    if (run === null) {
      const { buf } = this;
      run = { body: buf, view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), start, end };
      this.lastRun = run;
    }
    run.start = start;
    run.end = end;
    return run;
  }

  /** A bytes field as base64 text. */
  base64(): string {
    const end = this.end();
    const start = this.reader.pos;
    this.reader.pos = end;
    return this.buf.toString("base64", start, end);
  }
}

/** Wire failures (truncation, bad varints, invalid UTF-8) become the 400 protobufjs's decode gave. */
export function asPayloadError(error: unknown): unknown {
  // A request past its allowance is not malformed: it goes up as it is (413, not 400).
  if (error instanceof PayloadError || error instanceof TooManyValuesError) return error;
  return new PayloadError(`invalid protobuf: ${(error as Error).message}`);
}
