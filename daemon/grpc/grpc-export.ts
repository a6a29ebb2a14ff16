/**
 * One unary OTLP/gRPC call on an HTTP/2 stream: checked, read within the body cap, handed to
 * the same ingest pipeline as the HTTP routes, answered once committed. Failures are the shared
 * ingest errors rendered with `toGrpc()`; this file only moves bytes and headers.
 */
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { nowNs } from "../../shared/time.js";
import { partialSuccessMessage } from "../http/otlp-response.js";
import { capBuffer, contentEncodingOf, DISCARD_LIMIT_BYTES } from "../ingest/body-cap.js";
import { IngestError, ingestErrorOf, toGrpc } from "../ingest/ingest-errors.js";
import type { IngestPipeline } from "../ingest/ingest-pipeline.js";
import type { SignalName } from "../signals/registry.js";
import { frameMessage, UnaryMessageReader } from "./grpc-frame.js";
import { EXPORT_METHODS } from "./grpc-methods.js";
import {
  GRPC_INTERNAL,
  GRPC_OK,
  GRPC_PERMISSION_DENIED,
  GRPC_UNIMPLEMENTED,
  type GrpcStatus,
  statusTrailers,
} from "./grpc-status.js";

export interface GrpcExportOptions {
  pipeline: IngestPipeline;
  /** The largest message accepted, as sent and once inflated. */
  maxBodyBytes: number;
  /** The Host guard's rule, applied to `:authority`. */
  authorityAllowed(authority: string | undefined): boolean;
}

const ACCEPT_ENCODING = "identity,gzip";

/** `application/grpc` and `application/grpc+proto` (the protobuf codec is the only one served). */
export function isGrpcContentType(header: string | undefined): boolean {
  const type = (header ?? "").split(";")[0]?.trim().toLowerCase();
  return type === "application/grpc" || type === "application/grpc+proto";
}

/** A trailers-only answer: the status in the headers, no message. */
function answerStatus(stream: ServerHttp2Stream, status: GrpcStatus, httpStatus = 200): void {
  // A client that reset its stream meanwhile is owed nothing.
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      ":status": httpStatus,
      "content-type": "application/grpc+proto",
      "grpc-accept-encoding": ACCEPT_ENCODING,
      ...statusTrailers(status),
    },
    { endStream: true },
  );
  discardRest(stream);
}

/** Reads and drops what the client still sends, so it finishes and reads the answer; cut off past the limit. */
function discardRest(stream: ServerHttp2Stream): void {
  let discarded = 0;
  stream.removeAllListeners("data");
  stream.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) stream.close(constants.NGHTTP2_CANCEL);
  });
  stream.resume();
}

function answerFailure(stream: ServerHttp2Stream, error: unknown, signal: SignalName): void {
  const failure = ingestErrorOf(error, signal);
  if (!failure) {
    console.error(`obsd: ${(error as Error)?.stack ?? error}`);
    answerStatus(stream, { code: GRPC_INTERNAL, message: "internal error", retryDelaySeconds: null });
    return;
  }
  // The gRPC specification has a server answer a content type it does not speak with HTTP 415.
  const httpStatus = failure.kind === "unsupported-media-type" ? 415 : 200;
  answerStatus(stream, toGrpc(failure), httpStatus);
}

function answerResponse(stream: ServerHttp2Stream, message: Buffer): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond(
    { ":status": 200, "content-type": "application/grpc+proto", "grpc-accept-encoding": ACCEPT_ENCODING },
    { waitForTrailers: true },
  );
  stream.on("wantTrailers", () =>
    stream.sendTrailers(statusTrailers({ code: GRPC_OK, message: "", retryDelaySeconds: null })),
  );
  stream.end(frameMessage(message));
}

/** The stream's one message, read within the cap. */
function readMessage(stream: ServerHttp2Stream, maxBytes: number): Promise<{ compressed: boolean; message: Buffer }> {
  const reader = new UnaryMessageReader(maxBytes);
  return new Promise((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (error) {
        reject(error);
      }
    });
    stream.on("end", () => {
      try {
        resolve(reader.finish());
      } catch (error) {
        reject(error);
      }
    });
    stream.on("aborted", () => reject(new IngestError("invalid-payload", "the request was aborted")));
  });
}

/** Checks, reads, ingests and answers one call. Never throws: every outcome is an answer. */
export async function handleGrpcExport(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  options: GrpcExportOptions,
): Promise<void> {
  stream.on("error", () => {}); // a client that resets its stream is not the collector's failure
  const path = headers[":path"] ?? "";
  const signal = EXPORT_METHODS.get(path);
  if (!options.authorityAllowed(headers[":authority"])) {
    const message = `authority "${headers[":authority"]}" is not allowed: obsd answers loopback names and its bound host only (DNS rebinding protection)`;
    return answerStatus(stream, { code: GRPC_PERMISSION_DENIED, message, retryDelaySeconds: null });
  }
  if (!isGrpcContentType(headers["content-type"])) {
    const failure = new IngestError(
      "unsupported-media-type",
      `unsupported content-type "${headers["content-type"] ?? ""}": send application/grpc (OTLP/gRPC) or use the OTLP/HTTP paths over HTTP/1.1`,
    );
    return answerFailure(stream, failure, signal ?? "traces");
  }
  if (!signal) {
    const message = `unknown method ${path}: obsd serves ${[...EXPORT_METHODS.keys()].join(", ")}`;
    return answerStatus(stream, { code: GRPC_UNIMPLEMENTED, message, retryDelaySeconds: null });
  }
  if (headers[":method"] !== "POST") {
    const message = `method ${headers[":method"]} is not allowed: ${path} is called with POST, as every gRPC method is`;
    return answerStatus(stream, { code: GRPC_UNIMPLEMENTED, message, retryDelaySeconds: null });
  }
  try {
    const declared = headers["grpc-encoding"] as string | undefined;
    const encoding = contentEncodingOf(declared, "grpc-encoding");
    const { compressed, message } = await readMessage(stream, options.maxBodyBytes);
    if (compressed && encoding === "identity") {
      throw new IngestError(
        "invalid-payload",
        declared === undefined
          ? "invalid gRPC request: a compressed message without grpc-encoding"
          : `invalid gRPC request: a compressed message with grpc-encoding ${declared}, which carries only uncompressed ones`,
      );
    }
    // The same cap again once inflated; the result owns its memory, for the decoder thread.
    const body = await capBuffer(message, compressed ? encoding : "identity", options.maxBodyBytes);
    const result = await options.pipeline.ingest(signal, "protobuf", body, nowNs());
    answerResponse(stream, result.rejected ? partialSuccessMessage(result.rejected) : Buffer.alloc(0));
  } catch (error) {
    answerFailure(stream, error, signal);
  }
}
