/**
 * OTLP/gRPC load without an SDK: unary TraceService/Export calls over one HTTP/2 connection,
 * as grpc-js multiplexes its calls, with the length-prefixed framing done here. Answers other
 * than grpc-status 0 fail the run.
 */
import { type ClientHttp2Session, connect } from "node:http2";

const TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function exportOnce(session: ClientHttp2Session, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": TRACE_EXPORT,
      "content-type": "application/grpc",
      te: "trailers",
    });
    let status = "";
    stream.on("response", (headers) => {
      status = String(headers["grpc-status"] ?? status);
    });
    stream.on("trailers", (trailers) => {
      status = String(trailers["grpc-status"] ?? status);
    });
    stream.on("error", reject);
    stream.on("close", () => resolve(status));
    stream.resume();
    stream.end(frame(body));
  });
}

/** Exports every protobuf body to the collector at `url`, `concurrency` calls in flight on one connection. */
export async function exportAllGrpc(url: string, bodies: Buffer[], concurrency: number): Promise<void> {
  const session = connect(url);
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const status = await exportOnce(session, bodies[next++] as Buffer);
          if (status !== "0") throw new Error(`export answered grpc-status ${status}`);
        }
      }),
    );
  } finally {
    session.close();
  }
}
