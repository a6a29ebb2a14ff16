/**
 * `--otlp-standard-ports` / OBS_OTLP_STANDARD_PORTS=1: 4317 and 4318 beside the main port when
 * they are free, reported and skipped when taken. The ports may be in use on this machine by
 * anything, so the "taken" case takes them itself, and the "free" case checks which it is.
 */
import { createServer, type Server } from "node:net";
import { OTLPTraceExporter as GrpcTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import type { CollectorEndpoint } from "../../shared/endpoints.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";

/** Listens on `port` of 127.0.0.1; null when something else already does (it is taken either way). */
function occupy(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

function release(server: Server | null): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

async function exportSpan(exporter: SpanExporter, service: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  provider.getTracer("standard-ports").startSpan(`to ${service}`).end();
  await provider.forceFlush();
  await provider.shutdown();
}

async function endpointsOf(obsd: CollectorProcess): Promise<CollectorEndpoint[]> {
  return ((await http(`${obsd.url}/api/health`)).json() as { endpoints: CollectorEndpoint[] }).endpoints;
}

describe("the OTLP standard ports on request (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess | null = null;
  afterEach(async () => {
    if (obsd) expect(await obsd.stop()).to.equal(0);
    obsd = null;
  });

  it("are not opened unless asked: health lists the main port alone, with every protocol", async () => {
    obsd = await startCollectorProcess();
    expect(await endpointsOf(obsd)).to.deep.equal([
      {
        role: "main",
        url: obsd.url,
        port: obsd.port,
        protocols: ["grpc", "http/protobuf", "http/json"],
        listening: true,
        problem: null,
      },
    ]);
    expect(obsd.output()).to.include(`  OTLP gRPC    127.0.0.1:${obsd.port}  (the same port`);
  });

  it("are skipped with a message when taken, in the banner, health and obs status, and the collector runs on", async () => {
    const held = [await occupy(4317), await occupy(4318)];
    try {
      obsd = await startCollectorProcess({ args: ["--otlp-standard-ports"] });
      const output = obsd.output();
      expect(output).to.match(/Standard {5}http:\/\/127\.0\.0\.1:4317 {2}not listening: port 4317 is in use/);
      expect(output).to.match(/Standard {5}http:\/\/127\.0\.0\.1:4318 {2}not listening: port 4318 is in use/);
      const endpoints = await endpointsOf(obsd);
      expect(endpoints.map((e) => [e.role, e.port, e.listening, e.problem])).to.deep.equal([
        ["main", obsd.port, true, null],
        ["otlp-grpc", 4317, false, "port 4317 is in use by another process"],
        ["otlp-http", 4318, false, "port 4318 is in use by another process"],
      ]);
      await exportSpan(new GrpcTraceExporter({ url: obsd.url }), "main-port");
      expect((await http(`${obsd.url}/api/traces?service=main-port`)).json().data).to.have.length(1);

      const status = await runObs(["status", "--json"], { env: { OBS_MONITOR_URL: obsd.url } });
      expect(status.code, status.stderr).to.equal(0);
      const listed = JSON.parse(status.stdout).data.endpoints as CollectorEndpoint[];
      expect(listed.map((e) => [e.port, e.listening])).to.deep.equal([
        [obsd.port, true],
        [4317, false],
        [4318, false],
      ]);
      const human = await runObs(["status"], { env: { OBS_MONITOR_URL: obsd.url } });
      expect(human.stdout).to.include("listens   http://127.0.0.1:4317  OTLP standard port (otlp-grpc): not listening");
    } finally {
      await Promise.all(held.map(release));
    }
  });

  it("are used when free (OBS_OTLP_STANDARD_PORTS=1): gRPC on 4317 and OTLP/HTTP on 4318 land in the store", async () => {
    // Free now, unless another program holds them: then the collector must say it skipped them.
    const probes = [await occupy(4317), await occupy(4318)];
    const free = probes.map((probe) => probe !== null);
    await Promise.all(probes.map(release));
    obsd = await startCollectorProcess({ env: { OBS_OTLP_STANDARD_PORTS: "1" } });
    const endpoints = await endpointsOf(obsd);
    expect(endpoints.slice(1).map((e) => [e.port, e.listening])).to.deep.equal([
      [4317, free[0]],
      [4318, free[1]],
    ]);
    if (free[0]) {
      await exportSpan(new GrpcTraceExporter({ url: "http://127.0.0.1:4317" }), "standard-grpc");
      expect((await http(`${obsd.url}/api/traces?service=standard-grpc`)).json().data).to.have.length(1);
    }
    if (free[1]) {
      await exportSpan(new JsonTraceExporter({ url: "http://127.0.0.1:4318/v1/traces" }), "standard-http");
      expect((await http(`${obsd.url}/api/traces?service=standard-http`)).json().data).to.have.length(1);
    }
    const health = (await http(`${obsd.url}/api/health`)).json();
    expect(health.configuration.otlpStandardPorts).to.deep.equal({ value: true, source: "env" });
  });
});
