import { cpSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { runObs } from "../helpers/obs-cli.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";
import { type SeenRequest, startTracedApp, type TracedApp } from "../helpers/traced-app.js";

const FIXTURES = packagePath("test", "fixtures", "checks");

/**
 * Stands in front of a real obsd as a collector without a metrics route would: traces and logs
 * go through to obsd untouched, metrics are refused with 404.
 */
async function withoutMetrics(collectorUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      if (request.url === "/v1/metrics") {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      const forwarded = await fetch(`${collectorUrl}${request.url}`, {
        method: "POST",
        headers: { "content-type": String(request.headers["content-type"] ?? "") },
        body: Buffer.concat(chunks),
      });
      response
        .writeHead(forwarded.status, { "content-type": forwarded.headers.get("content-type") ?? "application/json" })
        .end(Buffer.from(await forwarded.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A metric's values of one group added up over the window, per value of `groupBy`. */
async function totals(collectorUrl: string, name: string, groupBy: string, agg: string) {
  const query = new URLSearchParams({ name, service: "obs-runner", groupBy, agg, lookback: "15m" });
  const answer = await http(`${collectorUrl}/api/metrics/series?${query}`);
  expect(answer.status, answer.body.toString()).to.equal(200);
  const groups = answer.json().data.groups as { group: Record<string, string>; values: (number | null)[] }[];
  return Object.fromEntries(
    groups.map((g) => [g.group[groupBy], g.values.reduce((sum: number, value) => sum + (value ?? 0), 0)]),
  );
}

/** A metric's newest value per value of `groupBy`. */
async function latest(collectorUrl: string, name: string, groupBy: string, agg: string) {
  const query = new URLSearchParams({ name, service: "obs-runner", groupBy, agg, lookback: "15m" });
  const answer = await http(`${collectorUrl}/api/metrics/series?${query}`);
  expect(answer.status, answer.body.toString()).to.equal(200);
  const groups = answer.json().data.groups as { group: Record<string, string>; latest: number | null }[];
  return Object.fromEntries(groups.map((g) => [g.group[groupBy], g.latest]));
}

describe("runner telemetry (real obsd, real Chromium, mock provider)", function () {
  this.timeout(120_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let collector: CollectorProcess;
  let project: ReturnType<typeof tempDir>;

  before(async () => {
    site = await serveFolder(join(FIXTURES, "site"));
    collector = await startCollectorProcess();
    project = tempDir("obs-otel-");
    cpSync(join(FIXTURES, "specs"), join(project.path, "tests"), { recursive: true });
    cpSync(join(FIXTURES, "transcript.json"), join(project.path, "transcript.json"));
  });
  after(async () => {
    await site.close();
    await collector.stop();
    project.cleanup();
  });

  const run = (extra: string[]) =>
    runObs(
      mockArgs(site.url, "test", ["tests/login.obs.ts", "tests/failing-check.obs.ts"], ["--cache", "off", ...extra]),
      { cwd: project.path, env: CLEAN_ENV, timeoutMs: 100_000 },
    );

  it("delivers the run's spans, logs and metrics to obsd, one trace per run, and nothing without an endpoint", async () => {
    const result = await run(["--otel-endpoint", collector.url, "--otel-environment", "ci"]);
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    expect(result.stderr).to.not.include("runner telemetry");

    const spans = http(`${collector.url}/api/spans/search?service=obs-runner&limit=200`);
    const found = (await spans).json().data as {
      traceId: string;
      spanId: string;
      parentSpanId: string | null;
      operation: string;
      durationNs: number;
      status: { code: string };
      attributes: Record<string, unknown>;
      resource: { attributes: Record<string, unknown> };
    }[];
    const named = (operation: string) => found.filter((span) => span.operation === operation);
    const [runSpan] = named("obs.run");
    expect(runSpan, JSON.stringify(found.map((span) => span.operation))).to.not.equal(undefined);
    if (!runSpan) return;
    expect(runSpan.resource.attributes).to.deep.include({
      "service.name": "obs-runner",
      "deployment.environment.name": "ci",
    });
    expect(new Set(found.map((span) => span.traceId))).to.deep.equal(new Set([runSpan.traceId]));
    const [signIn] = named("obs.test signs in");
    const [greeting] = named("obs.test greets a visitor who never signed in");
    expect(signIn?.parentSpanId).to.equal(runSpan.spanId);
    expect(signIn?.attributes["obs.test.status"]).to.equal("passed");
    expect(greeting?.attributes["obs.test.status"]).to.equal("failed");
    expect(greeting?.status.code).to.match(/error/i);
    const signInSteps = found.filter((span) => span.parentSpanId === signIn?.spanId);
    expect(signInSteps.map((span) => span.operation).sort()).to.deep.equal(
      ["navigate", "type", "type", "click", "done", "done"].map((tool) => `obs.step ${tool}`).sort(),
    );

    const logs = (await http(`${collector.url}/api/logs?service=obs-runner&limit=200`)).json().data as {
      traceId: string;
      body: unknown;
    }[];
    // One per step of both tests (6 + 3) and one per test finished.
    expect(logs).to.have.length(11);
    expect(logs.every((log) => log.traceId === runSpan.traceId)).to.equal(true);
    expect(logs.map((log) => String(log.body))).to.include("passed tests/login.obs.ts > signs in");

    // The metrics are stored too, and agree with the spans of the same run.
    const metrics = (await http(`${collector.url}/api/metrics?service=obs-runner`)).json().data as {
      name: string;
      type: string;
      unit: string;
    }[];
    expect(metrics.map((m) => [m.name, m.type, m.unit]).sort()).to.deep.equal([
      ["gen_ai.client.token.usage", "histogram", "{token}"],
      ["obs.test.duration", "histogram", "s"],
      ["obs.tests", "sum", ""],
    ]);
    expect(await totals(collector.url, "obs.tests", "attr.obs.test.status", "increase")).to.deep.equal({
      passed: 1,
      failed: 1,
    });
    expect(await totals(collector.url, "obs.test.duration", "attr.obs.test.status", "count")).to.deep.equal({
      passed: 1,
      failed: 1,
    });
    const tests = [signIn, greeting].map((span) => span?.attributes ?? {});
    const tokens = (key: string) => tests.reduce((sum, attributes) => sum + Number(attributes[key] ?? 0), 0);
    expect(await totals(collector.url, "gen_ai.client.token.usage", "attr.gen_ai.token.type", "sum")).to.deep.equal({
      input: tokens("gen_ai.usage.input_tokens"),
      output: tokens("gen_ai.usage.output_tokens"),
    });
    // Each test's p95 lies within its bucket around the test's own duration: the bounds are
    // seconds (under milliseconds' bounds a test of 1.5 s read 4.75 s).
    const p95 = await latest(collector.url, "obs.test.duration", "attr.obs.test.status", "p95");
    for (const [status, span] of [
      ["passed", signIn],
      ["failed", greeting],
    ] as const) {
      const seconds = (span?.durationNs ?? 0) / 1e9;
      expect(p95[status], `${status}: ${seconds} s`).to.be.within(seconds / 2.5, seconds * 2.5);
    }

    // No endpoint, no export: the collector's counts do not move.
    const before = (await http(`${collector.url}/api/health`)).json();
    const quiet = await run([]);
    expect(quiet.code).to.equal(1);
    const after = (await http(`${collector.url}/api/health`)).json();
    expect(after.counts).to.deep.equal(before.counts);
  });

  it("says once which signals the endpoint refused, and still reports the run", async () => {
    // A collector without a metrics route takes the traces and logs and refuses the metrics.
    const older = await withoutMetrics(collector.url);
    try {
      const result = await run(["--otel-endpoint", older.url]);
      expect(result.code).to.equal(1);
      expect(result.stdout).to.match(/2 tests: 1 passed, 1 failed/);
      expect(result.stderr).to.match(
        /^obs: runner telemetry: metrics were not accepted by http:\/\/127\.0\.0\.1:\d+\/v1\/metrics \(.+\)$/m,
      );
      expect(result.stderr.match(/runner telemetry/g)).to.have.length(1);
    } finally {
      await older.close();
    }
  });

  it("refuses an endpoint that is not a URL, and propagation to nobody, before any browser starts", async () => {
    const bad = await run(["--otel-endpoint", "localhost:4318"]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--otel-endpoint "localhost:4318" is not an http\(s\) URL/);
    const propagate = await run(["--otel-endpoint", collector.url, "--otel-propagate"]);
    expect(propagate.code).to.equal(2);
    expect(propagate.stderr).to.match(
      /--otel-propagate sends trace context only to hosts in --otel-propagate-allowlist, and it names none; e\.g\. --otel-propagate-allowlist 127\.0\.0\.1:\d+/,
    );
    const noEndpoint = await run(["--otel-propagate", "--otel-propagate-allowlist", "127.0.0.1"]);
    expect(noEndpoint.code).to.equal(2);
    expect(noEndpoint.stderr).to.match(/--otel-propagate needs --otel-endpoint/);
  });

  describe("trace context propagation to the app under test", () => {
    let app: TracedApp;
    before(async () => {
      app = await startTracedApp(collector.url, "fixture-shop");
      writeFileSync(
        join(project.path, "tests", "orders.obs.ts"),
        'import { test } from "obs/test";\n\ntest("lists orders", async ({ agent }) => {\n  await agent.goto("/orders.html");\n  await agent.check("the page lists two orders");\n});\n',
      );
      writeFileSync(
        join(project.path, "orders-transcript.json"),
        JSON.stringify({
          schema_version: "obs.mock-transcript/v1",
          entries: [
            {
              test: "lists orders",
              instruction: "lists two orders",
              calls: [{ tool: "done", args: { quote: "Scones", evidence: "the list shows Tea and Scones" } }],
            },
          ],
        }),
      );
    });
    after(async () => {
      await app.close();
    });

    const runOrders = async (extra: string[], env: NodeJS.ProcessEnv = {}) => {
      app.requests.length = 0;
      const result = await runObs(
        mockArgs(
          app.url,
          "test",
          ["tests/orders.obs.ts"],
          ["--cache", "off", "--otel-endpoint", collector.url, ...extra],
          "orders-transcript.json",
        ),
        { cwd: project.path, env: { ...CLEAN_ENV, ...env }, timeoutMs: 60_000 },
      );
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      return { result, requests: [...app.requests] };
    };
    const carried = (requests: SeenRequest[], host: string) =>
      requests.filter((request) => request.host === host && request.path !== "/favicon.ico");
    const ownHost = () => `127.0.0.1:${app.port}`;
    const otherHost = () => `localhost:${app.port}`;

    it("sends the test's traceparent to allowed hosts only, and the app's spans join the test's trace", async () => {
      const { result, requests } = await runOrders(["--otel-propagate", "--otel-propagate-allowlist", ownHost()]);
      expect(result.stderr).to.not.include("--otel-propagate");
      const own = carried(requests, ownHost());
      expect(own.map((request) => request.path)).to.include.members(["/orders.html", "/orders.js"]);
      const [traceparent] = new Set(own.map((request) => request.traceparent));
      expect(new Set(own.map((request) => request.traceparent)).size).to.equal(1);
      expect(traceparent).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const pixel = carried(requests, otherHost());
      expect(pixel.map((request) => request.path)).to.deep.equal(["/pixel.gif"]);
      expect(pixel[0]?.traceparent).to.equal(null);

      // The header names the test's span; the app's spans are its children in one trace.
      const [, traceId, parentId] = String(traceparent).split("-");
      await app.flush();
      const spans = (await http(`${collector.url}/api/traces/${traceId}/spans`)).json().data as {
        spanId: string;
        parentSpanId: string | null;
        operation: string;
        serviceName: string;
      }[];
      const testSpan = spans.find((span) => span.operation === "obs.test lists orders");
      expect(testSpan?.spanId, JSON.stringify(spans)).to.equal(parentId);
      const appSpans = spans.filter((span) => span.serviceName === "fixture-shop");
      expect(appSpans.map((span) => span.operation)).to.include.members(["GET /orders.html", "GET /orders.js"]);
      expect(appSpans.every((span) => span.parentSpanId === parentId)).to.equal(true);
      expect(appSpans.map((span) => span.operation)).to.not.include("GET /pixel.gif");
    });

    it("sends nothing to a host the allowlist does not name, and nothing at all without --otel-propagate", async () => {
      const other = await runOrders(["--otel-propagate", "--otel-propagate-allowlist", otherHost()]);
      expect(carried(other.requests, ownHost()).map((request) => request.path)).to.include("/orders.html");
      expect(carried(other.requests, ownHost()).every((request) => request.traceparent === null)).to.equal(true);
      expect(carried(other.requests, otherHost()).map((request) => request.traceparent)).to.have.length(1);
      expect(carried(other.requests, otherHost())[0]?.traceparent).to.match(/^00-/);

      const off = await runOrders([]);
      expect(off.requests.length).to.be.greaterThan(2);
      expect(off.requests.every((request) => request.traceparent === null)).to.equal(true);
    });

    it("says once that a browser without WebDriver BiDi (engine_c) cannot carry trace context, and still runs", async () => {
      const allow = ["--otel-propagate", "--otel-propagate-allowlist", ownHost()];
      const webkit = await runOrders(["--browser", "engine_c", ...allow], { DISPLAY: "" });
      expect(webkit.result.stderr.match(/--otel-propagate/g)).to.have.length(1);
      expect(webkit.result.stderr).to.include(
        "obs: --otel-propagate: engine_c's browser session has no WebDriver BiDi, so no request carries trace context",
      );
      expect(carried(webkit.requests, ownHost()).map((request) => request.path)).to.include("/orders.html");
      expect(webkit.requests.every((request) => request.traceparent === null)).to.equal(true);
    });
  });
});
