import { expect } from "chai";
import type { RunReport, TestResult } from "../../client/checks/report/run-result.js";
import { TelemetryReporter } from "../../client/checks/telemetry/telemetry-reporter.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";

function result(name: string, status: TestResult["status"], inputTokens: number, outputTokens: number): TestResult {
  return {
    id: `tests/shop.obs.ts > ${name}`,
    file: "tests/shop.obs.ts",
    name,
    status,
    startedAt: new Date().toISOString(),
    durationMs: status === "skipped" ? 0 : 1500,
    browserStartMs: null,
    failure: null,
    steps: [],
    checks: [],
    pageErrors: [],
    failureEvidence: null,
    attempts: [],
    flaky: false,
    usage: { inputTokens, outputTokens },
    cache: { hits: 0, misses: 0 },
  };
}

/** The token histogram's observations and their sum over the last 15 minutes, per token type. */
async function tokenUsage(collectorUrl: string, agg: "count" | "sum"): Promise<Record<string, number>> {
  const query = new URLSearchParams({
    name: "gen_ai.client.token.usage",
    service: "obs-runner",
    groupBy: "attr.gen_ai.token.type",
    agg,
    lookback: "15m",
  });
  const answer = await http(`${collectorUrl}/api/metrics/series?${query}`);
  expect(answer.status, answer.body.toString()).to.equal(200);
  const groups = answer.json().data.groups as { group: Record<string, string>; values: (number | null)[] }[];
  return Object.fromEntries(
    groups.map((g) => [
      g.group["attr.gen_ai.token.type"],
      g.values.reduce((total: number, value) => total + (value ?? 0), 0),
    ]),
  );
}

describe("runner telemetry's token usage (real obsd, the SDK's exporters)", function () {
  this.timeout(60_000);
  let collector: CollectorProcess;

  before(async () => {
    collector = await startCollectorProcess();
  });
  after(async () => {
    await collector.stop();
  });

  it("records the tokens of tests that asked the model, and nothing for a skipped or fully cached test", async () => {
    const reporter = new TelemetryReporter(
      { endpoint: collector.url, serviceName: "obs-runner", environment: null },
      (line) => expect.fail(line),
    );
    const tests = [
      result("pays", "passed", 1200, 80),
      result("refunds", "failed", 900, 40),
      result("ships abroad", "skipped", 0, 0),
      // Every step replayed from the cache: no request reached the model.
      result("lists orders", "passed", 0, 0),
    ];
    reporter.onRunStart({ tests: tests.length, files: 1, engine: "mock", provider: "mock", model: "mock" });
    for (const test of tests) {
      reporter.onTestStart(test);
      reporter.onTestFinish(test);
    }
    const report: RunReport = {
      schemaVersion: "obs.report/v1",
      startedAt: new Date().toISOString(),
      durationMs: 3000,
      engine: "mock",
      provider: { name: "mock", model: "mock" },
      baseUrl: null,
      totals: { tests: 4, passed: 2, failed: 1, skipped: 1, flaky: 0 },
      usage: { inputTokens: 2100, outputTokens: 120 },
      cache: { hits: 3, misses: 2, mode: "on" },
      files: [{ file: "tests/shop.obs.ts", tests }],
    };
    await reporter.onRunFinish(report);

    // One observation per test that asked the model.
    expect(await tokenUsage(collector.url, "count")).to.deep.equal({ input: 2, output: 2 });
    expect(await tokenUsage(collector.url, "sum")).to.deep.equal({ input: 2100, output: 120 });
  });
});
