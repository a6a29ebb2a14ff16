/**
 * What differs between OTLP/JSON and OTLP/protobuf once the bytes are parsed: how ids,
 * 64-bit integers, bytes and enums are represented. The walker in `decode-*.ts` is shared.
 */
export interface WireCodec {
  /** Lowercase hex of an id of `size` bytes; null when absent or empty. Throws on a bad length. */
  id(value: unknown, size: number, path: string): string | null;
  /** An unsigned 64-bit integer (nanosecond timestamps). */
  uint64(value: unknown, path: string): bigint;
  /** A signed 64-bit integer: a number when it is exactly representable, else its decimal text. */
  int64(value: unknown, path: string): number | string;
  /** Base64 text of a bytes value. */
  bytes(value: unknown, path: string): string;
  /** A double; NaN and the infinities become their names, which JSON cannot carry as numbers. */
  double(value: unknown, path: string): number | string;
  /** A small unsigned integer (enums, counts, flags). */
  uint32(value: unknown, path: string): number;
}
