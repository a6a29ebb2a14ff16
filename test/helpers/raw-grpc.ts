import { connect, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http2";
import { createServer as createTcpServer, type Server, type Socket, connect as tcpConnect } from "node:net";

export interface RawGrpcAnswer {
  /** `:status` and the other response headers (a trailers-only answer carries its status here). */
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
  /** grpc-status from the trailers or, for a trailers-only answer, the headers. */
  status: number | null;
  message: string | null;
}

/** A gRPC message frame: flag, big-endian length, bytes. */
export function grpcFrame(message: Buffer, compressed = false): Buffer {
  const header = Buffer.alloc(5);
  header[0] = compressed ? 1 : 0;
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** One HTTP/2 request with the given headers and body, on a session of its own; resolves with everything answered. */
export function rawGrpcCall(url: string, headers: OutgoingHttpHeaders, body: Buffer): Promise<RawGrpcAnswer> {
  return new Promise((resolve, reject) => {
    const session = connect(url);
    session.on("error", reject);
    const stream = session.request({
      ":method": "POST",
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      responseHeaders = h;
    });
    stream.on("trailers", (t) => {
      trailers = t;
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      const statusText = (trailers["grpc-status"] ?? responseHeaders["grpc-status"]) as string | undefined;
      const message = (trailers["grpc-message"] ?? responseHeaders["grpc-message"]) as string | undefined;
      resolve({
        headers: responseHeaders,
        trailers,
        body: Buffer.concat(chunks),
        status: statusText === undefined ? null : Number(statusText),
        message: message === undefined ? null : decodeURIComponent(message),
      });
    });
    // A GET's stream is ended as it is opened: it carries no body.
    if (!stream.writableEnded) stream.end(body);
  });
}

/**
 * A TCP proxy to `targetPort` that forwards a new connection's first `splitAt` bytes, waits,
 * then the rest: the collector sees the connection's opening in two reads.
 */
export function splittingProxy(targetPort: number, splitAt: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((client) => {
    const upstream = tcpConnect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let forwarded = 0;
    let held: Buffer[] = [];
    let released = false;
    client.on("data", (chunk: Buffer) => {
      if (released) return void upstream.write(chunk);
      if (forwarded === 0 && chunk.length > splitAt) {
        upstream.write(chunk.subarray(0, splitAt));
        held.push(chunk.subarray(splitAt));
        forwarded = splitAt;
        setTimeout(() => {
          released = true;
          for (const rest of held) upstream.write(rest);
          held = [];
        }, 150);
      } else if (forwarded === 0) {
        upstream.write(chunk);
        forwarded = chunk.length;
        setTimeout(() => {
          released = true;
          for (const rest of held) upstream.write(rest);
        }, 150);
      } else {
        held.push(chunk);
      }
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
