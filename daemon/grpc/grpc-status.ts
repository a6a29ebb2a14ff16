/**
 * A call's outcome as gRPC trailers (PROTOCOL-HTTP2.md): `grpc-status`, `grpc-message`
 * percent-encoded, and for a failure the client may retry after a delay,
 * `grpc-status-details-bin` holding a google.rpc.Status whose details carry a
 * google.rpc.RetryInfo: the OTLP specification's way to say "retry, after this long".
 */
import protobuf from "protobufjs";

/** The status codes this server answers with besides the ingest ones (google.rpc.Code). */
export const GRPC_OK = 0;
export const GRPC_PERMISSION_DENIED = 7;
export const GRPC_UNIMPLEMENTED = 12;
export const GRPC_INTERNAL = 13;

export interface GrpcStatus {
  code: number;
  message: string;
  /** Seconds the client should wait before retrying, or null to send no retry information. */
  retryDelaySeconds: number | null;
}

const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * Percent-encodes what `grpc-message` may not carry raw: bytes outside printable ASCII, and `%`
 * itself, of the message's UTF-8.
 */
export function encodeGrpcMessage(message: string): string {
  let encoded = "";
  for (const byte of Buffer.from(message, "utf8")) {
    encoded +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/** google.rpc.Status { code = 1; message = 2; details = 3 (Any RetryInfo { retry_delay = 1 }) }. */
export function statusDetails(status: GrpcStatus & { retryDelaySeconds: number }): Buffer {
  const retryInfo = protobuf.Writer.create();
  retryInfo.uint32((1 << 3) | 2).fork(); // retry_delay: google.protobuf.Duration
  retryInfo.uint32((1 << 3) | 0).int64(Math.floor(status.retryDelaySeconds));
  retryInfo.ldelim();
  const any = protobuf.Writer.create();
  any.uint32((1 << 3) | 2).string(RETRY_INFO_TYPE);
  any.uint32((2 << 3) | 2).bytes(retryInfo.finish());
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 0).int32(status.code);
  writer.uint32((2 << 3) | 2).string(status.message);
  writer.uint32((3 << 3) | 2).bytes(any.finish());
  return Buffer.from(writer.finish());
}

/** The trailers (or, for a trailers-only answer, headers) that carry `status`. */
export function statusTrailers(status: GrpcStatus): Record<string, string> {
  const trailers: Record<string, string> = { "grpc-status": String(status.code) };
  if (status.message) trailers["grpc-message"] = encodeGrpcMessage(status.message);
  if (status.retryDelaySeconds !== null) {
    trailers["grpc-status-details-bin"] = statusDetails({ ...status, retryDelaySeconds: status.retryDelaySeconds })
      .toString("base64")
      .replace(/=+$/, "");
  }
  return trailers;
}
