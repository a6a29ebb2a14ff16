import { request as httpRequest, type IncomingMessage } from "node:http";
import { type ClientHttp2Session, connect, constants as h2 } from "node:http2";
import { request as httpsRequest } from "node:https";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { ForwardDestination } from "../../shared/forward-settings.js";
import { type ForwardSignal, signalPaths } from "./otlp-encoding.js";
import { grpcOutcome, httpOutcome, type SendOutcome } from "./retry-policy.js";

const gzipAsync = promisify(gzip);

/** How long one export may take before it counts as failed (and is retried). */
export const SEND_TIMEOUT_MS = 10_000;

/** Sends one export request to one destination; never throws, every failure is an outcome. */
export interface OtlpSender {
  send(signal: ForwardSignal, body: Buffer): Promise<SendOutcome>;
  close(): void;
}

export function senderFor(destination: ForwardDestination, timeoutMs = SEND_TIMEOUT_MS): OtlpSender {
  return destination.protocol === "grpc"
    ? new GrpcSender(destination, timeoutMs)
    : new HttpSender(destination, timeoutMs);
}

/**
 * A send's one outcome: the first of its answer, its failure and its deadline (after which
 * `abandon` ends the request, and the send counts as unanswered).
 */
function settleOnce(
  resolve: (outcome: SendOutcome) => void,
  timeoutMs: number,
  abandon: () => void,
): (outcome: SendOutcome) => void {
  let settled = false;
  const finish = (outcome: SendOutcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    resolve(outcome);
  };
  const deadline = setTimeout(() => {
    abandon();
    finish({ kind: "retry", reason: `no answer within ${timeoutMs / 1000} s`, retryAfterMs: null, timedOut: true });
  }, timeoutMs);
  return finish;
}

/** A network error or a timeout: the upstream may be back later. */
function unreachable(error: Error): SendOutcome {
  return { kind: "retry", reason: error.message || error.name, retryAfterMs: null };
}

/** OTLP/HTTP: POST base + /v1/{signal}, gzip, protobuf or JSON. */
class HttpSender implements OtlpSender {
  constructor(
    private readonly destination: ForwardDestination,
    private readonly timeoutMs: number,
  ) {}

  async send(signal: ForwardSignal, body: Buffer): Promise<SendOutcome> {
    const compressed = await gzipAsync(body);
    const url = new URL(`${this.destination.url}${signalPaths(signal).httpPath}`);
    const json = this.destination.protocol === "http/json";
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      // A whole-request deadline: the socket's idle timeout alone lets a trickling answer run on.
      const finish = settleOnce(resolve, this.timeoutMs, () => req.destroy());
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            ...Object.fromEntries(this.destination.headers),
            "content-type": json ? "application/json" : "application/x-protobuf",
            "content-encoding": "gzip",
            "content-length": String(compressed.length),
          },
        },
        (res: IncomingMessage) => {
          // The body (a partial success, an error status) is read and let go: a partial
          // success is the upstream's own decision on records it saw.
          res.resume();
          res.on("end", () => finish(httpOutcome(res.statusCode ?? 0, headerOf(res, "retry-after"), Date.now())));
          res.on("error", (error) => finish(unreachable(error)));
        },
      );
      req.on("error", (error) => finish(unreachable(error)));
      req.end(compressed);
    });
  }

  close(): void {}
}

/** grpc-message is percent-encoded; a malformed one is shown as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function headerOf(res: IncomingMessage, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * OTLP/gRPC over one HTTP/2 connection (h2c for http://, TLS for https://), reopened when it
 * fails. A message is sent gzip-compressed (grpc-encoding), framed as gRPC's length-prefixed
 * message; the answer's grpc-status (in the trailers, or in the headers of a trailers-only
 * answer) decides.
 */
class GrpcSender implements OtlpSender {
  private session: ClientHttp2Session | null = null;

  constructor(
    private readonly destination: ForwardDestination,
    private readonly timeoutMs: number,
  ) {}

  private connection(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = connect(this.destination.url);
    // Errors surface on the stream too; without a listener an idle session's error would throw.
    session.on("error", () => {});
    session.on("close", () => {
      if (this.session === session) this.session = null;
    });
    session.unref();
    this.session = session;
    return session;
  }

  async send(signal: ForwardSignal, body: Buffer): Promise<SendOutcome> {
    const compressed = await gzipAsync(body);
    const frame = Buffer.alloc(5 + compressed.length);
    frame.writeUInt8(1, 0);
    frame.writeUInt32BE(compressed.length, 1);
    compressed.copy(frame, 5);
    const base = new URL(this.destination.url);
    const prefix = base.pathname === "/" ? "" : base.pathname;
    return new Promise((resolve) => {
      // A whole-call deadline; the connection is dropped with it, for a half-open one would
      // fail every later call the same way.
      const finish = settleOnce(resolve, this.timeoutMs, () => {
        stream?.close(h2.NGHTTP2_CANCEL);
        this.session?.destroy();
      });
      let stream: ReturnType<ClientHttp2Session["request"]> | undefined;
      try {
        stream = this.connection().request({
          ...Object.fromEntries(this.destination.headers),
          [h2.HTTP2_HEADER_METHOD]: "POST",
          [h2.HTTP2_HEADER_PATH]: `${prefix}${signalPaths(signal).grpcPath}`,
          [h2.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
          te: "trailers",
          "grpc-encoding": "gzip",
          "grpc-accept-encoding": "identity,gzip",
        });
      } catch (error) {
        this.session?.destroy();
        finish(unreachable(error as Error));
        return;
      }
      let status: string | undefined;
      let message = "";
      let httpStatus = 0;
      const take = (headers: Record<string, unknown>) => {
        if (headers["grpc-status"] !== undefined) status = String(headers["grpc-status"]);
        if (headers["grpc-message"] !== undefined) message = percentDecoded(String(headers["grpc-message"]));
      };

      stream.on("response", (headers) => {
        httpStatus = Number(headers[h2.HTTP2_HEADER_STATUS] ?? 0);
        take(headers);
      });
      stream.on("trailers", take);
      stream.on("data", () => {});
      stream.on("end", () => {
        if (status !== undefined) finish(grpcOutcome(Number(status), message));
        else if (httpStatus !== 200) finish(httpOutcome(httpStatus, undefined, Date.now()));
        else finish(unreachable(new Error("the gRPC answer carried no grpc-status")));
      });
      stream.on("error", (error) => finish(unreachable(error)));
      stream.on("close", () => {
        if (status !== undefined) finish(grpcOutcome(Number(status), message));
        else finish(unreachable(new Error("the gRPC stream closed without a status")));
      });
      stream.end(frame);
    });
  }

  close(): void {
    this.session?.close();
    this.session = null;
  }
}
