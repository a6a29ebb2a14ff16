import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { expect } from "chai";
import { senderFor } from "../../../daemon/forward/otlp-sender.js";
import type { ForwardDestination } from "../../../shared/forward-settings.js";

const BODY = Buffer.from("an OTLP request");

function listening<T extends Server | Http2Server>(server: T): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function destination(url: string, protocol: ForwardDestination["protocol"]): ForwardDestination {
  return { url, protocol, headers: [["x-api-key", "k3y-value"]] };
}

describe("forwarding senders", () => {
  describe("OTLP/gRPC", () => {
    let server: Http2Server;
    let url: string;
    /** How the test's server answers each call. */
    let answer: (stream: ServerHttp2Stream, headers: Record<string, unknown>, message: Buffer) => void;
    const calls: { path: string; headers: Record<string, unknown>; message: Buffer }[] = [];

    before(async () => {
      server = createHttp2Server();
      server.on("stream", (stream, headers) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const frame = Buffer.concat(chunks);
          // Length-prefixed message: compressed flag, 4-byte length, then the message.
          const message = frame[0] === 1 ? gunzipSync(frame.subarray(5)) : frame.subarray(5);
          calls.push({ path: String(headers[":path"]), headers, message });
          answer(stream, headers, message);
        });
      });
      url = await listening(server);
    });
    after(() => server.close());
    beforeEach(() => {
      calls.length = 0;
    });

    it("sends one gzip-compressed, length-prefixed message to the signal's Export method, with the headers", async () => {
      answer = (stream) => {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(Buffer.from([0, 0, 0, 0, 0]));
      };
      const sender = senderFor(destination(url, "grpc"));
      expect(await sender.send("metrics", BODY)).to.deep.equal({ kind: "ok" });
      sender.close();
      expect(calls).to.have.length(1);
      expect(calls[0]?.path).to.equal("/opentelemetry.proto.collector.metrics.v1.MetricsService/Export");
      expect(calls[0]?.headers).to.include({ "grpc-encoding": "gzip", "x-api-key": "k3y-value", te: "trailers" });
      expect(calls[0]?.message.equals(BODY)).to.equal(true);
    });

    it("reads a trailers-only refusal: INVALID_ARGUMENT is permanent, UNAVAILABLE is retried", async () => {
      let code = "3";
      answer = (stream) => {
        stream.respond(
          { ":status": 200, "content-type": "application/grpc", "grpc-status": code, "grpc-message": "bad%20span" },
          { endStream: true },
        );
      };
      const sender = senderFor(destination(url, "grpc"));
      expect(await sender.send("traces", BODY)).to.deep.equal({
        kind: "permanent",
        reason: "gRPC status 3: bad span",
        perRequest: true,
      });
      code = "14";
      expect(await sender.send("traces", BODY)).to.include({ kind: "retry" });
      sender.close();
    });

    it("keeps a malformed grpc-message as sent", async () => {
      answer = (stream) => {
        stream.respond(
          { ":status": 200, "content-type": "application/grpc", "grpc-status": "13", "grpc-message": "100% used" },
          { endStream: true },
        );
      };
      const sender = senderFor(destination(url, "grpc"));
      expect(await sender.send("logs", BODY)).to.deep.equal({
        kind: "permanent",
        reason: "gRPC status 13: 100% used",
        perRequest: false,
      });
      sender.close();
    });

    it("gives up on a call that is not answered in time, and answers the next on a new connection", async () => {
      answer = () => {};
      const sender = senderFor(destination(url, "grpc"), 300);
      const outcome = await sender.send("traces", BODY);
      expect(outcome).to.include({ kind: "retry" });
      answer = (stream) => {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "0" }, { endStream: true });
      };
      expect(await sender.send("traces", BODY)).to.deep.equal({ kind: "ok" });
      sender.close();
    });

    it("reports an upstream that is not there as retryable", async () => {
      const sender = senderFor(destination("http://127.0.0.1:1", "grpc"));
      expect(await sender.send("traces", BODY)).to.include({ kind: "retry" });
      sender.close();
    });
  });

  describe("OTLP/HTTP", () => {
    let server: Server;
    let url: string;
    let status = 200;
    let hang = false;
    const seen: { url: string; headers: Record<string, unknown>; body: Buffer }[] = [];

    before(async () => {
      server = createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          seen.push({ url: req.url ?? "", headers: req.headers, body: gunzipSync(Buffer.concat(chunks)) });
          if (hang) return;
          res.writeHead(status, status === 429 ? { "retry-after": "3" } : {}).end();
        });
      });
      url = await listening(server);
    });
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    it("posts gzip to the signal's path under the base URL, protobuf or JSON by protocol", async () => {
      status = 200;
      const protobuf = senderFor(destination(`${url}/otlp`, "http/protobuf"));
      expect(await protobuf.send("logs", BODY)).to.deep.equal({ kind: "ok" });
      const json = senderFor(destination(url, "http/json"));
      expect(await json.send("traces", Buffer.from("{}"))).to.deep.equal({ kind: "ok" });
      expect(seen.at(-2)).to.deep.include({ url: "/otlp/v1/logs" });
      expect(seen.at(-2)?.headers).to.include({
        "content-type": "application/x-protobuf",
        "content-encoding": "gzip",
        "x-api-key": "k3y-value",
      });
      expect(seen.at(-2)?.body.equals(BODY)).to.equal(true);
      expect(seen.at(-1)).to.deep.include({ url: "/v1/traces" });
      expect(seen.at(-1)?.headers).to.include({ "content-type": "application/json" });
    });

    it("passes Retry-After on, and times out a request that is never answered", async () => {
      status = 429;
      const sender = senderFor(destination(url, "http/protobuf"), 300);
      expect(await sender.send("traces", BODY)).to.deep.equal({
        kind: "retry",
        reason: "HTTP 429",
        retryAfterMs: 3000,
      });
      status = 400;
      expect(await sender.send("traces", BODY)).to.deep.equal({
        kind: "permanent",
        reason: "HTTP 400",
        perRequest: true,
      });
      hang = true;
      expect(await sender.send("traces", BODY)).to.deep.equal({
        kind: "retry",
        reason: "no answer within 0.3 s",
        retryAfterMs: null,
        timedOut: true,
      });
      hang = false;
    });
  });
});
