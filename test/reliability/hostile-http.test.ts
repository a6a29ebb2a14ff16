/**
 * Hostile HTTP: oversized headers, clients that send their body a byte at a time, and 200
 * connections at once. The collector refuses what it must, serves the rest, and its health
 * route keeps answering.
 */
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";

/** Opens a raw connection and writes `text`; the caller decides what happens next. */
function rawConnection(port: number, text: string): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(text);
      resolve({ socket, received: () => received });
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => {}); // the server may cut a hostile client off
    socket.once("error", reject);
  });
}

async function healthMs(url: string): Promise<number> {
  const started = performance.now();
  const res = await http(`${url}/api/health`);
  expect(res.status).to.equal(200);
  return performance.now() - started;
}

describe("hostile HTTP clients", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    await obsd.stop();
  });

  it("answers oversized headers with 431 and keeps serving", async () => {
    const { socket, received } = await rawConnection(
      obsd.port,
      `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once("close", resolve));
    expect(received()).to.match(/^HTTP\/1\.1 431 /);
    expect(await healthMs(obsd.url)).to.be.below(5_000);
  });

  it("keeps answering health while 50 clients trickle their bodies", async () => {
    const body = JSON.stringify(traceRequest("slow", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: 1n }]));
    const slow = await Promise.all(
      Array.from({ length: 50 }, () =>
        rawConnection(
          obsd.port,
          `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        ),
      ),
    );
    try {
      const timings: number[] = [];
      for (let i = 0; i < 10; i++) {
        for (const { socket } of slow) socket.write(body.slice(10 + i, 11 + i));
        timings.push(await healthMs(obsd.url));
      }
      // The event loop is not held by half-sent requests: health answers promptly every time.
      expect(Math.max(...timings)).to.be.below(2_000);
      // The slow clients finish, and their requests are served.
      for (const { socket } of slow) socket.write(body.slice(20));
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const { received } of slow) expect(received()).to.match(/^HTTP\/1\.1 200 /);
    } finally {
      for (const { socket } of slow) socket.destroy();
    }
  });

  it("serves 200 concurrent ingest connections, every one acknowledged and stored", async () => {
    const requests = Array.from({ length: 200 }, (_, i) =>
      postJson(
        `${obsd.url}/v1/traces`,
        traceRequest("crowd", [
          { traceId: hexId(1000 + i, 16), spanId: hexId(i, 8), startNs: BigInt(Date.now()) * 1_000_000n },
        ]),
        { connection: "close" },
      ),
    );
    const during = healthMs(obsd.url);
    const results = await Promise.all(requests);
    expect(results.map((res) => res.status)).to.deep.equal(Array(200).fill(200));
    expect(await during).to.be.below(5_000);
    const traces = await http(`${obsd.url}/api/traces?service=crowd&limit=100`);
    expect(traces.json().data).to.have.length(100);
    expect((await http(`${obsd.url}/api/health`)).json().counts.spans).to.be.at.least(200);
  });
});
