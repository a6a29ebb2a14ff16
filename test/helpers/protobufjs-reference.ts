/**
 * The reference the protobuf reader (daemon/otlp/protobuf-*.ts) is checked against: protobufjs
 * decodes the body into its message objects, and the shared walker turns those into records
 * with this codec, as the collector did before it read protobuf straight from the bytes.
 */
import { decodeLogs } from "../../daemon/otlp/decode-logs.js";
import { decodeTraces } from "../../daemon/otlp/decode-traces.js";
import { PayloadError } from "../../daemon/otlp/payload-error.js";
import type { LogBatch, SpanBatch } from "../../daemon/otlp/records.js";
import type { WireCodec } from "../../daemon/otlp/wire-codec.js";
import { otlpTypes } from "./otlp-protobuf.js";

interface LongLike {
  low: number;
  high: number;
}

function isLong(value: unknown): value is LongLike {
  return typeof value === "object" && value !== null && "low" in value && "high" in value;
}

function longToBigInt(value: LongLike, signed: boolean): bigint {
  const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return signed ? BigInt.asIntN(64, bits) : bits;
}

/** protobufjs messages: ids and bytes are Buffers, 64-bit integers are Longs. */
const protobufjsCodec: WireCodec = {
  id(value, size, path) {
    if (value == null) return null;
    const bytes = value as Uint8Array;
    if (bytes.length === 0) return null;
    if (bytes.length !== size) throw new PayloadError(`${path}: expected ${size} bytes, got ${bytes.length}`);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");
  },
  uint64(value) {
    if (value == null) return 0n;
    if (isLong(value)) return longToBigInt(value, false);
    return BigInt(value as number);
  },
  int64(value) {
    const n = isLong(value) ? longToBigInt(value, true) : BigInt(value as number);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
  },
  bytes(value) {
    const bytes = value as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
  },
  double(value) {
    const n = value as number;
    return Number.isFinite(n) ? n : String(n);
  },
  uint32(value) {
    return value == null ? 0 : (value as number) >>> 0;
  },
};

function parse(decode: () => unknown): unknown {
  try {
    return decode();
  } catch (error) {
    throw new PayloadError(`invalid protobuf: ${(error as Error).message}`);
  }
}

export function referenceTraces(body: Uint8Array): SpanBatch {
  return decodeTraces(
    parse(() => otlpTypes.traceRequest.decode(body)),
    protobufjsCodec,
  );
}

export function referenceLogs(body: Uint8Array): LogBatch {
  return decodeLogs(
    parse(() => otlpTypes.logsRequest.decode(body)),
    protobufjsCodec,
  );
}
