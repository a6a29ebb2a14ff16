/**
 * OTLP/gRPC on the collector's own port, against a real obsd: the OpenTelemetry JS gRPC
 * exporters (grpc-js) beside an OTLP/HTTP exporter on the same port, and a raw node:http2
 * client for what the exporters never send.
 */
import { connect } from "node:http2";
import { gzipSync } from "node:zlib";
import { SeverityNumber } from "@opentelemetry/api-logs";
import type { ExportResult } from "@opentelemetry/core";
import { OTLPLogExporter as GrpcLogExporter } from "@opentelemetry/exporter-logs-otlp-grpc";
import { OTLPTraceExporter as GrpcTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import Database from "better-sqlite3";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { protobufOf } from "../helpers/fuzz-payloads.js";
import { http } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { grpcFrame, rawGrpcCall, splittingProxy } from "../helpers/raw-grpc.js";

const TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const LOGS_EXPORT = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
const MAX_BODY = 64 * 1024;

/** Records each export's result, so a test sees the exporter's own verdict. */
class RecordingSpanExporter implements SpanExporter {
  readonly results: ExportResult[] = [];
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** Ends one span of `service` through `exporter` and waits for its export to resolve. */
async function exportSpan(exporter: SpanExporter, service: string, name: string): Promise<RecordingSpanExporter> {
  const recording = new RecordingSpanExporter(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(recording)],
  });
  provider.getTracer("grpc-test").startSpan(name).end();
  await provider.forceFlush();
  await provider.shutdown();
  return recording;
}

function protobufTraces(service: string, n: number): Buffer {
  const startNs = BigInt(Date.now()) * 1_000_000n;
  return protobufOf("traces", traceRequest(service, [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs }]));
}

/**
 * One gRPC call whose request body is written in `pieces`, each handed to the socket before the
 * next is written, so no two share a DATA frame; resolves with the grpc-status.
 */
function grpcCallInPieces(url: string, path: string, pieces: Buffer[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const session = connect(url);
    session.on("error", reject);
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    let status: string | undefined;
    stream.on("response", (headers) => {
      status ??= headers["grpc-status"] as string | undefined;
    });
    stream.on("trailers", (trailers) => {
      status = trailers["grpc-status"] as string | undefined;
    });
    stream.resume();
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      resolve(status === undefined ? null : Number(status));
    });
    const writeNext = (index: number): void => {
      if (index === pieces.length) return void stream.end();
      stream.write(pieces[index], () => setImmediate(() => writeNext(index + 1)));
    };
    writeNext(0);
  });
}

describe("OTLP/gRPC on the collector's port (real obsd, real grpc-js exporters)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess({ args: ["--max-body-size", String(MAX_BODY)] });
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  async function traceNames(service: string): Promise<string[]> {
    const answer = (await http(`${obsd.url}/api/traces?service=${service}`)).json() as {
      data: { rootOperation: string }[];
    };
    return answer.data.map((trace) => trace.rootOperation).sort();
  }

  for (const compression of ["none", "gzip"] as const) {
    it(`takes traces and logs from the gRPC exporters (${compression}) and HTTP/JSON on the same port, visible once each export resolves`, async () => {
      const service = `grpc-${compression}`;
      const grpc = await exportSpan(
        new GrpcTraceExporter({ url: obsd.url, compression: compression as never }),
        service,
        "over grpc",
      );
      expect(grpc.results.map((r) => [r.code, r.error?.message])).to.deep.equal([[0, undefined]]);
      expect(await traceNames(service)).to.deep.equal(["over grpc"]);

      const json = await exportSpan(new JsonTraceExporter({ url: `${obsd.url}/v1/traces` }), service, "over http/json");
      expect(json.results.map((r) => r.code)).to.deep.equal([0]);
      expect(await traceNames(service)).to.deep.equal(["over grpc", "over http/json"]);

      const logs = new LoggerProvider({
        resource: resourceFromAttributes({ "service.name": service }),
        processors: [
          new SimpleLogRecordProcessor({
            exporter: new GrpcLogExporter({ url: obsd.url, compression: compression as never }),
          }),
        ],
      });
      logs
        .getLogger("grpc-test")
        .emit({ severityNumber: SeverityNumber.WARN, body: `logged over grpc (${compression})` });
      await logs.forceFlush();
      await logs.shutdown();
      const stored = (await http(`${obsd.url}/api/logs?service=${service}`)).json() as { data: { body: unknown }[] };
      expect(stored.data.map((log) => log.body)).to.deep.equal([`logged over grpc (${compression})`]);
    });
  }

  it("takes a connection whose preface arrives in two reads, over gRPC and over HTTP/1.1", async () => {
    const proxy = await splittingProxy(obsd.port, 10);
    try {
      const url = `http://127.0.0.1:${proxy.port}`;
      const grpc = await exportSpan(new GrpcTraceExporter({ url }), "split-preface", "split grpc");
      expect(grpc.results.map((r) => r.code)).to.deep.equal([0]);
      const health = await http(`http://127.0.0.1:${proxy.port}/api/health`);
      expect(health.status).to.equal(200);
      expect(await traceNames("split-preface")).to.deep.equal(["split grpc"]);
    } finally {
      await proxy.close();
    }
  });

  it("answers an empty success message, or INVALID_ARGUMENT for a bad payload", async () => {
    const ok = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT }, grpcFrame(protobufTraces("raw-grpc", 1)));
    expect(ok.headers[":status"]).to.equal(200);
    expect(ok.status).to.equal(0);
    expect([...ok.body]).to.deep.equal([0, 0, 0, 0, 0]);

    const bad = await rawGrpcCall(obsd.url, { ":path": LOGS_EXPORT }, grpcFrame(Buffer.from([0x0a, 0xff, 0x01])));
    expect(bad.status).to.equal(3);
    expect(bad.message).to.match(/^invalid OTLP logs payload/);
    const cut = await rawGrpcCall(obsd.url, { ":path": LOGS_EXPORT }, grpcFrame(Buffer.from("abc")).subarray(0, 6));
    expect([cut.status, cut.message]).to.deep.equal([3, "invalid gRPC request: the message was cut off"]);
  });

  it("takes one message split across DATA frames, its 5-byte prefix too, and over 16 KiB", async () => {
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const message = protobufOf(
      "traces",
      traceRequest("split-frames", [
        {
          traceId: hexId(40, 16),
          spanId: hexId(40, 8),
          startNs,
          name: "framed",
          attributes: { pad: "x".repeat(40_000) },
        },
      ]),
    );
    // Over one default HTTP/2 frame (16 KiB), under the cap.
    expect(message.length).to.be.within(16 * 1024 + 1, MAX_BODY);
    const frame = grpcFrame(message);
    const pieces = [frame.subarray(0, 2), frame.subarray(2, 5), frame.subarray(5, 9)];
    for (let at = 9; at < frame.length; at += 10_000)
      pieces.push(frame.subarray(at, Math.min(at + 10_000, frame.length)));
    expect(await grpcCallInPieces(obsd.url, TRACE_EXPORT, pieces)).to.equal(0);
    expect(await traceNames("split-frames")).to.deep.equal(["framed"]);
  });

  it("answers RESOURCE_EXHAUSTED for a message over the cap, sent or once inflated", async () => {
    const big = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT }, grpcFrame(Buffer.alloc(MAX_BODY + 1, 1)));
    expect(big.status).to.equal(8);
    expect(big.message).to.match(/larger than the 65536-byte limit/);
    const bomb = gzipSync(Buffer.alloc(MAX_BODY * 4));
    expect(bomb.length).to.be.lessThan(MAX_BODY);
    const inflated = await rawGrpcCall(
      obsd.url,
      { ":path": TRACE_EXPORT, "grpc-encoding": "gzip" },
      grpcFrame(bomb, true),
    );
    expect(inflated.status).to.equal(8);
    expect(inflated.message).to.match(/inflated request body is larger than the 65536-byte limit/);
  });

  it("answers UNIMPLEMENTED for an unknown method or an encoding it does not read", async () => {
    const unknown = await rawGrpcCall(
      obsd.url,
      { ":path": "/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export" },
      grpcFrame(Buffer.alloc(0)),
    );
    expect(unknown.headers[":status"]).to.equal(200);
    expect(unknown.status).to.equal(12);
    expect(unknown.message).to.include(TRACE_EXPORT);
    const snappy = await rawGrpcCall(
      obsd.url,
      { ":path": TRACE_EXPORT, "grpc-encoding": "snappy" },
      grpcFrame(Buffer.alloc(3), true),
    );
    expect(snappy.status).to.equal(12);
    expect(snappy.message).to.match(/unsupported grpc-encoding "snappy"/);
  });

  it("says a served method must be POST, and that identity cannot carry a compressed message", async () => {
    const get = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT, ":method": "GET" }, Buffer.alloc(0));
    expect([get.status, get.message]).to.deep.equal([
      12,
      `method GET is not allowed: ${TRACE_EXPORT} is called with POST, as every gRPC method is`,
    ]);
    const identity = await rawGrpcCall(
      obsd.url,
      { ":path": TRACE_EXPORT, "grpc-encoding": "identity" },
      grpcFrame(gzipSync(Buffer.alloc(0)), true),
    );
    expect([identity.status, identity.message]).to.deep.equal([
      3,
      "invalid gRPC request: a compressed message with grpc-encoding identity, which carries only uncompressed ones",
    ]);
    const absent = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT }, grpcFrame(gzipSync(Buffer.alloc(0)), true));
    expect([absent.status, absent.message]).to.deep.equal([
      3,
      "invalid gRPC request: a compressed message without grpc-encoding",
    ]);
  });

  it("answers HTTP 415 for a content type other than application/grpc", async () => {
    const answer = await rawGrpcCall(
      obsd.url,
      { ":path": TRACE_EXPORT, "content-type": "application/json" },
      Buffer.from("{}"),
    );
    expect(answer.headers[":status"]).to.equal(415);
    expect(answer.status).to.equal(12);
    expect(answer.message).to.match(/unsupported content-type "application\/json"/);
  });

  it("refuses a bogus :authority as the Host guard refuses a bogus Host, and stores nothing", async () => {
    const answer = await rawGrpcCall(
      obsd.url,
      { ":path": TRACE_EXPORT, ":authority": "evil.example:27686" },
      grpcFrame(protobufTraces("rebound", 2)),
    );
    expect(answer.status).to.equal(7);
    expect(answer.message).to.match(/authority "evil.example:27686" is not allowed/);
    expect(await traceNames("rebound")).to.deep.equal([]);
  });

  it("answers UNAVAILABLE with retry information while another program holds the store locked", async () => {
    const blocker = new Database(obsd.dbPath);
    blocker.exec("BEGIN IMMEDIATE");
    let answer: Awaited<ReturnType<typeof rawGrpcCall>>;
    try {
      answer = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT }, grpcFrame(protobufTraces("locked", 3)));
    } finally {
      blocker.exec("ROLLBACK");
      blocker.close();
    }
    expect(answer.status).to.equal(14);
    expect(answer.message).to.match(/^store unavailable: database is locked/);
    const details = Buffer.from(String(answer.headers["grpc-status-details-bin"]), "base64");
    expect(details.toString("latin1")).to.include("type.googleapis.com/google.rpc.RetryInfo");
    const retried = await rawGrpcCall(obsd.url, { ":path": TRACE_EXPORT }, grpcFrame(protobufTraces("locked", 3)));
    expect(retried.status).to.equal(0);
    expect(await traceNames("locked")).to.have.length(1);
  });
});
