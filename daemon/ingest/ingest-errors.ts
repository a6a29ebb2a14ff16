/**
 * Every way an ingest request fails, classified once (in the spirit of the OpenTelemetry
 * Collector's `internal/errors`): what kind of failure it is, whether a client may retry it, and
 * how each transport says so. The HTTP route renders with `toHttp`, a gRPC receiver would render
 * the same failure with `toGrpc`; neither decides anything itself.
 *
 * Retryable follows the OTLP specification's lists: for OTLP/HTTP 429, 502, 503 and 504 are
 * retryable and other 4xx/5xx are not; for OTLP/gRPC UNAVAILABLE (among others) is, while
 * INVALID_ARGUMENT, INTERNAL, UNIMPLEMENTED and RESOURCE_EXHAUSTED without retry information
 * are not.
 */
import { TooManyValuesError } from "../otlp/decode-allowance.js";
import { PayloadError } from "../otlp/payload-error.js";
import { StorageError, StoreLostError, StoreUnavailableError } from "../store/store-errors.js";

export type IngestErrorKind =
  /** The body is not a valid payload, or could not be read whole (cut off, bad gzip). */
  | "invalid-payload"
  /** The body, sent or inflated, is larger than the cap. */
  | "too-large"
  /** The body decodes to more values than one request may hold (decode-allowance.ts). */
  | "too-many-values"
  /** The media type or the content encoding is not one obsd reads. */
  | "unsupported-media-type"
  | "unsupported-encoding"
  /**
   * The store cannot take this write now (the collector is stopping, a pipeline thread stopped,
   * another connection holds the file locked, or its file is gone); a client should try again.
   */
  | "store-unavailable"
  /** The store failed the write. */
  | "store-failure";

interface KindRendering {
  retryable: boolean;
  httpStatus: number;
  grpcCode: GrpcCode;
}

/** The gRPC status codes ingest answers with (google.rpc.Code). */
export const GRPC_CODES = {
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNIMPLEMENTED: 12,
} as const;
export type GrpcCode = keyof typeof GRPC_CODES;

const KINDS: Record<IngestErrorKind, KindRendering> = {
  "invalid-payload": { retryable: false, httpStatus: 400, grpcCode: "INVALID_ARGUMENT" },
  "too-large": { retryable: false, httpStatus: 413, grpcCode: "RESOURCE_EXHAUSTED" },
  "too-many-values": { retryable: false, httpStatus: 413, grpcCode: "RESOURCE_EXHAUSTED" },
  // gRPC answers an encoding (or a codec) the server does not have with UNIMPLEMENTED.
  "unsupported-media-type": { retryable: false, httpStatus: 415, grpcCode: "UNIMPLEMENTED" },
  "unsupported-encoding": { retryable: false, httpStatus: 415, grpcCode: "UNIMPLEMENTED" },
  "store-unavailable": { retryable: true, httpStatus: 503, grpcCode: "UNAVAILABLE" },
  // OTLP treats 500 and INTERNAL as permanent: the same write would fail the same way.
  "store-failure": { retryable: false, httpStatus: 500, grpcCode: "INTERNAL" },
};

/**
 * How long a client is asked to wait before retrying a transient store failure: a lock is
 * usually released, or a stopping collector replaced, within about a second.
 */
export const RETRY_AFTER_SECONDS = 1;

/** One ingest failure, transport-neutral. `message` is the whole text a client is shown. */
export class IngestError extends Error {
  override name = "IngestError";
  constructor(
    readonly kind: IngestErrorKind,
    message: string,
    /** When a retryable failure tells the client how long to wait (Retry-After, RetryInfo). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return KINDS[this.kind].retryable;
  }
}

export interface HttpRendering {
  status: number;
  /** Sent as JSON: `{"error": message}`, as every obsd error answer. */
  body: { error: string };
  headers: Record<string, string>;
}

export function toHttp(error: IngestError): HttpRendering {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== null) headers["Retry-After"] = String(error.retryAfterSeconds);
  return { status: KINDS[error.kind].httpStatus, body: { error: error.message }, headers };
}

export interface GrpcRendering {
  /** The numeric status code (`grpc-status`). */
  code: number;
  name: GrpcCode;
  /** `grpc-message`. */
  message: string;
  /** For a google.rpc.RetryInfo detail: how long the client should wait, or null for no detail. */
  retryDelaySeconds: number | null;
}

export function toGrpc(error: IngestError): GrpcRendering {
  const name = KINDS[error.kind].grpcCode;
  return {
    code: GRPC_CODES[name],
    name,
    message: error.message,
    retryDelaySeconds: error.retryable ? error.retryAfterSeconds : null,
  };
}

/**
 * The ingest failure a pipeline error is, worded for `signal` ("traces", "logs"); null for an
 * error that is none of the known failures (a bug: the transport answers it as internal).
 */
export function ingestErrorOf(error: unknown, signal: string): IngestError | null {
  if (error instanceof IngestError) return error;
  if (error instanceof TooManyValuesError) return new IngestError("too-many-values", error.message);
  if (error instanceof PayloadError) {
    return new IngestError("invalid-payload", `invalid OTLP ${signal} payload: ${error.message}`);
  }
  if (error instanceof StoreLostError || error instanceof StoreUnavailableError) {
    return new IngestError("store-unavailable", `store unavailable: ${error.message}`, RETRY_AFTER_SECONDS);
  }
  if (error instanceof StorageError) return new IngestError("store-failure", `storage failure: ${error.message}`);
  return null;
}
