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
/**
 * At most this many connections wait to be identified per listener: past it the oldest is
 * closed, so idle connections opened faster than the sniff timeout ends them cannot pile up,
 * while a real client (which sends its first bytes at once) is decided long before it is oldest.
 */
export const MAX_UNDECIDED = 256;

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
export function shareListener(http1: HttpServer, http2: Http2Server, maxUndecided = MAX_UNDECIDED): () => void {
  const original = http1.listeners("connection") as ConnectionListener[];
  const undecided = new Set<Socket>();
  http1.removeAllListeners("connection");
  http1.on("connection", (socket: Socket) => {
    if (undecided.size >= maxUndecided) {
      // A Set iterates in insertion order: the first is the one that has waited longest.
      const oldest = undecided.values().next().value as Socket;
      undecided.delete(oldest);
      oldest.destroy();
    }
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
