import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { expect } from "chai";
import { SCHEMA_VERSION } from "../../daemon/store/schema.js";
import { packagePath } from "../../shared/package-root.js";
import { apiSchema } from "../../shared/record-schemas.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { compileSchema } from "../helpers/schema-validator.js";

const run = promisify(execFile);

describe("service routes: health, OpenAPI, docs (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  before(async () => {
    obsd = await startCollectorProcess({ env: { OBS_MAX_BODY_SIZE: "8MiB" } });
  });
  after(async () => {
    await obsd.stop();
  });

  it("serves an OpenAPI 3.0.3 document that passes a real validator", async () => {
    const res = await http(`${obsd.url}/openapi.json`);
    expect(res.status).to.equal(200);
    const document = res.json();
    expect(document.openapi).to.equal("3.0.3");
    await SwaggerParser.validate(structuredClone(document));
  });

  it("describes its service routes, and serves them", async () => {
    const document = (await http(`${obsd.url}/openapi.json`)).json();
    for (const path of ["/api/health", "/docs", "/openapi.json", "/v1/logs", "/v1/traces"]) {
      expect(document.paths, path).to.have.property(path);
      for (const method of Object.keys(document.paths[path])) {
        const res = await http(`${obsd.url}${path}`, {
          method: method.toUpperCase(),
          headers: { "content-type": "application/json" },
          body: method === "post" ? "{}" : undefined,
        });
        expect(res.status, `${method} ${path}`).to.equal(200);
      }
    }
    expect((await http(`${obsd.url}/api/nothing`)).status).to.equal(404);
  });

  it("answers /api/health in the documented shape with maintained counts", async () => {
    const spans = Array.from({ length: 3 }, (_, i) => ({
      traceId: hexId(5, 16),
      spanId: hexId(i, 8),
      startNs: BigInt(Date.now()) * 1_000_000n,
    }));
    await postJson(`${obsd.url}/v1/traces`, traceRequest("health-check", spans));
    const health = (await http(`${obsd.url}/api/health`)).json();
    const validate = compileSchema(apiSchema("health"));
    expect(validate(health), JSON.stringify(validate.errors)).to.equal(true);
    expect(health.counts).to.include({ spans: 3, traces: 1, services: 1 });
    expect(health.database.path).to.equal(obsd.dbPath);
    expect(health.pid).to.equal(obsd.child.pid);
    expect(health.baseUrl).to.equal(obsd.url);
    expect(health.retention).to.deep.equal({ maxAge: "7d", maxAgeMs: 604_800_000, maxBytes: 1024 ** 3 });
    expect(health.latestTelemetryAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(health.versions.schema).to.equal(SCHEMA_VERSION);
  });

  it("dates its latest telemetry by span starts, never later than the records arrived", async () => {
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const ending2262 = { traceId: hexId(6, 16), spanId: hexId(6, 8), startNs, durationNs: 2n ** 63n - 1n - startNs };
    const res = await postJson(`${obsd.url}/v1/traces`, traceRequest("from-2262", [ending2262]));
    expect(res.status, res.body.toString()).to.equal(200);
    const { latestTelemetryAt } = (await http(`${obsd.url}/api/health`)).json();
    expect(latestTelemetryAt).to.match(/^\d{4}-/);
    expect(Date.parse(latestTelemetryAt)).to.be.at.most(Date.now());
    expect(Date.parse(latestTelemetryAt)).to.be.at.least(Number(startNs / 1_000_000n));
  });

  it("reports its effective configuration and where each value came from", async () => {
    const { configuration } = (await http(`${obsd.url}/api/health`)).json();
    expect(configuration).to.deep.equal({
      monitorHost: { value: "127.0.0.1", source: "default" },
      monitorPort: { value: Number(new URL(obsd.url).port), source: "flag" },
      db: { value: obsd.dbPath, source: "flag" },
      retention: { value: "7d", source: "default" },
      maxDbSize: { value: "1GiB", source: "default" },
      maxBodySize: { value: "8MiB", source: "env" },
      otlpStandardPorts: { value: false, source: "default" },
    });
  });

  it("serves /docs as HTML with every route and no external assets", async () => {
    const res = await http(`${obsd.url}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers["content-type"]).to.match(/^text\/html/);
    const html = res.body.toString();
    for (const path of ["/v1/traces", "/v1/logs", "/api/health", "/openapi.json"])
      expect(html).to.include(`<code>${path}</code>`);
    expect(html).not.to.match(/<(script|link|img|iframe)\b/i);
    expect(html).not.to.match(/(src|href)="https?:/i);
  });

  it("serves /docs under a policy that runs no script, allows its own style alone and no framing", async () => {
    const res = await http(`${obsd.url}/docs`);
    const policy = String(res.headers["content-security-policy"]);
    const directives = new Map(
      policy.split(";").map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values.join(" ")] as const;
      }),
    );
    expect(directives.get("default-src")).to.equal("'none'");
    expect(directives.has("script-src")).to.equal(false);
    expect(directives.get("frame-ancestors")).to.equal("'none'");
    expect(directives.get("base-uri")).to.equal("'none'");
    const style = /<style>([^<]*)<\/style>/.exec(res.body.toString())?.[1] ?? "";
    expect(style).not.to.equal("");
    const hash = createHash("sha256").update(style).digest("base64");
    expect(directives.get("style-src")).to.equal(`'sha256-${hash}'`);
    expect(res.headers["x-content-type-options"]).to.equal("nosniff");
  });

  it("serves a Python standard-library client (docs/examples/send_and_check.py)", async () => {
    const { stdout } = await run("python3", [packagePath("docs", "examples", "send_and_check.py"), obsd.url]);
    const result = JSON.parse(stdout);
    expect(result.traces).to.deep.equal({ accepted: 1 });
    expect(result.logs).to.deep.equal({ accepted: 1 });
    expect(result.counts.logs).to.be.at.least(1);
  });

  it("serves the Python query example (docs/examples/query_traces.py), cursor paging included", async () => {
    const now = BigInt(Date.now()) * 1_000_000n;
    for (let i = 0; i < 5; i++) {
      const traceId = hexId(300 + i, 16);
      await postJson(
        `${obsd.url}/v1/traces`,
        traceRequest("py", [
          {
            traceId,
            spanId: hexId(i * 2, 8),
            name: "GET /pay",
            startNs: now + BigInt(i) * 1_000_000n,
            durationNs: 4_000_000n,
          },
          {
            traceId,
            spanId: hexId(i * 2 + 1, 8),
            parentSpanId: hexId(i * 2, 8),
            name: "charge",
            startNs: now + BigInt(i) * 1_000_000n,
            error: i !== 2,
          },
        ]),
      );
    }
    const { stdout } = await run("python3", [packagePath("docs", "examples", "query_traces.py"), obsd.url, "1h"]);
    const result = JSON.parse(stdout);
    expect(result.errorTraces).to.deep.equal([4, 3, 1, 0].map((i) => hexId(300 + i, 16)));
    expect(result.pages).to.equal(2);
    expect(result.newestTree).to.deep.equal(["GET /pay (py, 4 ms, unset)", "  charge (py, 1 ms, error)"]);
  });

  it("accepts every curl example in docs/api.md", async () => {
    const doc = readFileSync(packagePath("docs", "api.md"), "utf8");
    const block = /```sh\n(base=[^\n]*\n[\s\S]*?)```/.exec(doc)?.[1] ?? "";
    const lines = block.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
    const curls = lines.filter((line) => line.startsWith("curl"));
    expect(curls.length, "curl examples found").to.be.greaterThan(5);
    // The trace the README's ingestion example sends, which the examples look up.
    const now = BigInt(Date.now()) * 1_000_000n;
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("checkout", [
        { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174", name: "GET /cart", startNs: now },
      ]),
    );
    // Run the block as written, against this collector, one answer per line.
    const script = lines
      .map((line) => (line.startsWith("base=") ? `base=${obsd.url}` : line.startsWith("curl") ? `${line}; echo` : line))
      .join("\n");
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script]);
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers).to.have.length(curls.length);
    for (const answer of answers) expect(answer, JSON.stringify(answer)).to.have.property("data");
  });
});
