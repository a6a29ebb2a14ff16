/**
 * The h2c server for OTLP/gRPC. It never listens itself: connections reach it from the
 * collector's listeners once their preface says HTTP/2 (one-port.ts). It keeps its sessions so
 * the collector can close them when it stops.
 */
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import { type GrpcExportOptions, handleGrpcExport } from "./grpc-export.js";

/** A session with no stream for this long is closed (the client reconnects when it needs to). */
const SESSION_IDLE_MS = 120_000;

/**
 * HTTP/2 flow-control windows. The protocol's default, 64 KiB for the connection and for each
 * stream, lets a client send an export batch (often hundreds of KiB) only a window at a time,
 * a round trip each, and makes the calls multiplexed on one connection share 64 KiB. Windows
 * of a few MiB let a batch arrive at once. Each call's message is still read within the body
 * cap, as over HTTP/1.1, and the calls in flight on one connection are bounded as gRPC servers
 * commonly bound them.
 */
const STREAM_WINDOW_BYTES = 4 * 1024 * 1024;
const SESSION_WINDOW_BYTES = 16 * 1024 * 1024;
const MAX_CONCURRENT_STREAMS = 100;

export interface GrpcServer {
  readonly server: Http2Server;
  /**
   * Asks every session to finish (GOAWAY: streams in flight complete, no new ones start) and
   * resolves once they have; sessions still open after `graceMs` are destroyed.
   */
  close(graceMs: number): Promise<void>;
}

export function createGrpcServer(options: GrpcExportOptions): GrpcServer {
  const sessions = new Set<ServerHttp2Session>();
  const server = createServer({
    settings: { initialWindowSize: STREAM_WINDOW_BYTES, maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
  });
  server.setTimeout(SESSION_IDLE_MS);
  server.on("session", (session) => {
    sessions.add(session);
    session.setLocalWindowSize(SESSION_WINDOW_BYTES);
    session.on("close", () => sessions.delete(session));
    session.on("error", () => {}); // a broken connection ends its session; nothing to report
  });
  server.on("stream", (stream, headers) => {
    void handleGrpcExport(stream, headers, options);
  });
  return {
    server,
    async close(graceMs) {
      const open = [...sessions].map(
        (session) => new Promise<void>((resolve) => (session.closed ? resolve() : session.close(() => resolve()))),
      );
      const grace = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, graceMs);
      await Promise.all(open);
      clearTimeout(grace);
    },
  };
}
