import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";

const validateDocument = cliDocumentValidator();

describe("obs status: cheap health of the collector (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  before(async () => {
    obsd = await startCollectorProcess({ env: { OBS_RETENTION: "2d" } });
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("billing", [
        { traceId: hexId(7, 16), spanId: hexId(1, 8), startNs: BigInt(Date.now()) * 1_000_000n },
      ]),
    );
  });
  after(async () => {
    await obsd.stop();
  });

  it("summarises address, store and counts for people", async () => {
    const result = await runObs(["status", "--base-url", obsd.url]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(new RegExp(`^ok {2}obsd \\S+ {2}${obsd.url} {2}\\(given by flag\\)`));
    expect(result.stdout.split("\n")[1]).to.equal(`  web UI    ${obsd.url}/`);
    expect(result.stdout).to.include(obsd.dbPath);
    expect(result.stdout).to.include("1 traces, 1 spans, 0 logs, 0 metric points in 0 series");
    expect(result.stdout).to.include("1 services in the last 15m");
  });

  it("adds the effective configuration and where each value came from with --json", async () => {
    const result = await runObs(["status", "--json"], { env: { OBS_MONITOR_URL: obsd.url } });
    expect(result.code, result.stderr).to.equal(0);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(document.data.target).to.deep.equal({ base_url: obsd.url, source: "env" });
    expect(document.data.ui).to.equal(`${obsd.url}/`);
    expect(document.data.configuration.retention).to.deep.equal({ value: "2d", source: "env" });
    expect(document.data.configuration.db).to.deep.equal({ value: obsd.dbPath, source: "flag" });
    expect(document.data.configuration.monitor_host).to.deep.equal({ value: "127.0.0.1", source: "default" });
    expect(document.data.counts).to.deep.equal({
      services: 1,
      services_lookback: "15m",
      traces: 1,
      spans: 1,
      logs: 0,
      series: 0,
      points: 0,
    });
  });

  it("is exit 3 with an error document when nothing answers at the URL", async () => {
    const port = await freePort();
    const result = await runObs(["status", "--json", "--port", String(port)]);
    expect(result.code).to.equal(3);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document)).to.equal(true);
    expect(document.error.code).to.equal("collector_unavailable");
    expect(result.stderr).to.equal("");
  });
});
