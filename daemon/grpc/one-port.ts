/**
 * One port for every OTLP transport: an HTTP/1.1 server that listens hands each new connection
 * to gRPC's h2c server instead when it opens with the HTTP/2 preface (http2-preface.ts). The
 * bytes read to decide are put back (`unshift`) before the socket changes hands, so the server
 * that takes it reads the connection from its first byte.
 *
 * The node:http server stays the listener and keeps its own connection handling (timeouts,
 * idle tracking, close), which it sets up only once it listens itself; its original
 * `connection` listener is called for HTTP/1.1 connections.
 */
import type { Server as HttpServer } from "node:http";
import type { Http2Server } from "node:http2";
import type { Socket } from "node:net";
import { prefaceVerdict } from "./http2-preface.js";

/** A connection that has not sent a whole preface (or anything else) within this long is closed. */
const SNIFF_TIMEOUT_MS = 10_000;

type ConnectionListener = (socket: Socket) => void;

/** Watches a new connection's first bytes and calls `decided` once they say which protocol it is. */
export function sniffConnection(socket: Socket, decided: (verdict: "http1" | "http2", read: Buffer) => void): void {
  let read: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), SNIFF_TIMEOUT_MS);
  const settle = (verdict: "http1" | "http2") => {
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("end", onEnd);
    socket.off("close", onClose);
    socket.pause();
    socket.unshift(read);
    decided(verdict, read);
  };
  const onData = (chunk: Buffer) => {
    read = read.length === 0 ? chunk : Buffer.concat([read, chunk]);
    const verdict = prefaceVerdict(read);
    if (verdict !== "undecided") settle(verdict);
  };
  // A client that stops sending before the preface is whole is answered by HTTP/1.1 (a 400).
  const onEnd = () => settle("http1");
  const onClose = () => clearTimeout(timer);
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("close", onClose);
  socket.on("error", () => socket.destroy());
}

/**
 * Makes `http1` hand HTTP/2 prior-knowledge connections to `http2`; call before it listens.
 * Returns what closes the connections still undecided: neither server knows them yet, so
 * neither server's close would end them before the sniff timeout.
 */
export function shareListener(http1: HttpServer, http2: Http2Server): () => void {
  const original = http1.listeners("connection") as ConnectionListener[];
  const undecided = new Set<Socket>();
  http1.removeAllListeners("connection");
  http1.on("connection", (socket: Socket) => {
    undecided.add(socket);
    socket.once("close", () => undecided.delete(socket));
    sniffConnection(socket, (verdict) => {
      undecided.delete(socket);
      if (verdict === "http2") {
        // The session reads what was put back itself, on the next tick: resuming here would
        // let those bytes flow past it.
        http2.emit("connection", socket);
        return;
      }
      for (const listener of original) listener.call(http1, socket);
      socket.resume();
    });
  });
  return () => {
    for (const socket of undecided) socket.destroy();
  };
}
