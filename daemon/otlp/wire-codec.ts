/**
 * How a request parsed into objects represents ids, 64-bit integers, bytes and enums, for the
 * shared walker in `decode-*.ts`: OTLP/JSON's is json-codec.ts. (OTLP/protobuf is read straight
 * from its bytes by protobuf-*.ts, which build the same records.)
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
