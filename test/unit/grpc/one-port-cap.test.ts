import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { expect } from "chai";
import { shareListener } from "../../../daemon/grpc/one-port.js";

/** Resolves once `server` has been handed `count` connections in all. */
function connectionsSeen(server: Server, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    server.on("connection", () => {
      seen += 1;
      if (seen === count) resolve();
    });
  });
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Sends one HTTP/1.1 request on `socket` and resolves with the status line of its answer. */
function statusLine(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let read = "";
    socket.on("data", (chunk: Buffer) => {
      read += chunk.toString("latin1");
      if (read.includes("\r\n")) resolve(read.slice(0, read.indexOf("\r\n")));
    });
    socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  });
}

describe("one port: connections still undecided are capped", () => {
  let http1: Server;
  let drop: () => void;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    http1 = createServer((_request, response) => response.end("ok"));
    drop = shareListener(http1, createHttp2Server(), 2);
    await new Promise<void>((resolve) => http1.listen(0, "127.0.0.1", resolve));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    drop();
    await new Promise((resolve) => http1.close(resolve));
  });

  it("closes the oldest silent connection when one more arrives past the cap; the others are served", async () => {
    const firstTwo = connectionsSeen(http1, 2);
    const oldest = await open((http1.address() as AddressInfo).port);
    const second = await open((http1.address() as AddressInfo).port);
    sockets.push(oldest, second);
    await firstTwo;
    const closed = new Promise((resolve) => oldest.once("close", resolve));
    const third = await open((http1.address() as AddressInfo).port);
    sockets.push(third);
    await closed;
    expect(await statusLine(second)).to.equal("HTTP/1.1 200 OK");
    expect(await statusLine(third)).to.equal("HTTP/1.1 200 OK");
  });
});
