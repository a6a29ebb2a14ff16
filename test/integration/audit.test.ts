import { expect } from "chai";
import { ALL_ANOMALIES, type AuditScenario, auditScenario } from "../helpers/audit-scenario.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { traceRequest } from "../helpers/otlp-builders.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";

const validateDocument = cliDocumentValidator();
const CAUSAL =
  /\b(because|caused?|causes|causing|due to|leads? to|led to|results? in|resulted in|root cause|responsible|triggered by|blame)/i;

async function seed(obsd: CollectorProcess, scenario: AuditScenario): Promise<void> {
  for (const request of scenario.traces) await postJson(`${obsd.url}/v1/traces`, request);
  for (const request of scenario.logs) await postJson(`${obsd.url}/v1/logs`, request);
}

describe("audit: /api/audit and obs audit over planted anomalies (real obsd)", function () {
  this.timeout(60_000);
  const untilMs = Date.now() - 1_000;
  const until = new Date(untilMs).toISOString();
  const planted = auditScenario(untilMs, ALL_ANOMALIES);
  let control: CollectorProcess;
  let anomalous: CollectorProcess;
  let report: any;

  before(async () => {
    [control, anomalous] = await Promise.all([startCollectorProcess(), startCollectorProcess()]);
    await Promise.all([seed(control, auditScenario(untilMs, [])), seed(anomalous, planted)]);
    report = (await http(`${anomalous.url}/api/audit?until=${until}`)).json().data;
  });
  after(async () => {
    await Promise.all([control.stop(), anomalous.stop()]);
  });

  const findings = (code: string) => report.findings.filter((finding: any) => finding.code === code);

  it("finds nothing in a steady store", async () => {
    const steady = (await http(`${control.url}/api/audit?until=${until}`)).json().data;
    expect(steady.findings).to.deep.equal([]);
    expect(steady.counts).to.deep.equal({ error: 0, warning: 0, info: 0 });
  });

  it("groups error traces by their root span", () => {
    const [finding, ...others] = findings("error_trace");
    expect(others).to.deep.equal([]);
    expect(finding).to.include({ severity: "error", confidence: "high", service: "billing", operation: "POST /pay" });
    expect(finding.current).to.deep.equal({ errorTraces: 10 + 4, traces: 40 });
    expect(finding.evidence.traceIds).to.have.length(5);
    expect(finding.evidence.spanIds).to.have.length(5);
    expect(finding.followUp[0]).to.equal(
      "obs traces --service billing --operation 'POST /pay' --status error --since 15m",
    );
  });

  it("reports only the error signature the baseline never had", () => {
    const [finding, ...others] = findings("new_error_signature");
    expect(others).to.deep.equal([]);
    expect(finding).to.include({ service: "billing", operation: "charge", confidence: "high" });
    expect(finding.evidence.notes).to.deep.equal(["signature: connection reset by peer <n>:<n>"]);
    expect(planted.planted.newSignatureTraceIds).to.include.members(finding.evidence.traceIds);
    expect(finding.current).to.deep.equal({ spans: 4 });
  });

  it("declares a latency regression from the baseline p95, with both values", () => {
    const query = findings("latency_regression").find((finding: any) => finding.operation === "db.query");
    expect(query).to.include({ service: "shop", severity: "warning" });
    expect(query.current.p95Ms).to.be.at.least(120);
    expect(query.baseline.p95Ms).to.be.below(13);
    expect(query.current.spans).to.equal(40);
    expect(query.evidence.spanIds).to.have.length(5);
    // Operations whose latency held steady are not reported.
    expect(findings("latency_regression").map((finding: any) => finding.service)).to.not.include("billing");
  });

  it("flags slow traces by an explicit durationMin instead, when given", async () => {
    const data = (await http(`${anomalous.url}/api/audit?until=${until}&durationMin=100`)).json().data;
    const slow = data.findings.filter((finding: any) => finding.code === "latency_regression");
    expect(slow).to.have.length(1);
    expect(slow[0]).to.include({ service: "shop", operation: "GET /cart" });
    expect(slow[0].current).to.include({ slowTraces: 40, thresholdMs: 100 });
    expect(slow[0].baseline).to.deep.equal({ slowTraces: 0 });
  });

  it("reports the warning/error log burst with the traces it is correlated to", () => {
    const [finding, ...others] = findings("log_burst");
    expect(others).to.deep.equal([]);
    expect(finding).to.include({ service: "shop", severity: "warning" });
    expect(finding.current).to.include({ logs: 42, errors: 10 });
    expect(finding.baseline).to.include({ logs: 2, errors: 0 });
    expect(finding.evidence.traceIds).to.have.members(planted.planted.burstTraceIds);
    expect(finding.evidence.logIds).to.have.length(5);
    for (const logId of finding.evidence.logIds) expect(logId).to.match(/^[0-9a-f]{40}$/);
  });

  it("finds spans whose parent never arrived, past the grace period", () => {
    const [finding, ...others] = findings("incomplete_trace");
    expect(others).to.deep.equal([]);
    expect(finding).to.include({ service: "inventory", severity: "info", confidence: "high" });
    expect(finding.evidence.traceIds).to.have.members(planted.planted.orphanTraceIds);
    expect(finding.evidence.spanIds).to.have.members(planted.planted.orphanSpanIds);
  });

  it("names services that went silent", () => {
    const [finding, ...others] = findings("no_telemetry");
    expect(others).to.deep.equal([]);
    expect(finding).to.include({ service: "mailer", severity: "warning", confidence: "high" });
    expect(finding.baseline).to.deep.equal({ spans: 20, logs: 0, points: 0 });
  });

  it("orders findings by severity, then code, and words them without claiming causes", () => {
    const severities = report.findings.map((finding: any) => finding.severity);
    expect(severities).to.deep.equal(
      [...severities].sort((a, b) => ["error", "warning", "info"].indexOf(a) - ["error", "warning", "info"].indexOf(b)),
    );
    for (const finding of report.findings) expect(finding.summary).to.not.match(CAUSAL);
    expect(report.counts).to.deep.equal({ error: 1, warning: report.findings.length - 2, info: 1 });
  });

  it("answers byte for byte the same twice, over HTTP and in the CLI's data", async () => {
    const first = (await http(`${anomalous.url}/api/audit?until=${until}`)).body.toString();
    const second = (await http(`${anomalous.url}/api/audit?until=${until}`)).body.toString();
    expect(second).to.equal(first);
    const env = { OBS_MONITOR_URL: anomalous.url };
    const runs = await Promise.all([1, 2].map(() => runObs(["audit", "--until", until, "--json"], { env })));
    expect(JSON.stringify(JSON.parse(runs[1]?.stdout ?? "").data)).to.equal(
      JSON.stringify(JSON.parse(runs[0]?.stdout ?? "").data),
    );
  });

  it("prints findings for people, and one valid document with --json", async () => {
    const env = { OBS_MONITOR_URL: anomalous.url };
    const human = await runObs(["audit", "--until", until], { env });
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^audit of the last 15m/);
    expect(human.stdout).to.match(/^ERROR {3}error_trace {10}high {4}billing: POST \/pay$/m);
    expect(human.stdout).to.include(
      "  next    obs traces --service billing --operation 'POST /pay' --status error --since 15m",
    );
    const errorTraces = report.findings.find(
      (finding: any) => finding.code === "error_trace" && finding.service === "billing",
    ).evidence.traceIds;
    expect(errorTraces).to.not.be.empty;
    const links = errorTraces.map(
      (traceId: string, index: number) =>
        `  ${index === 0 ? "web UI " : "       "} ${anomalous.url}/ui/traces/${traceId}`,
    );
    expect(human.stdout).to.include(links.join("\n"));
    const json = await runObs(["audit", "--until", until, "--json", "--service", "mailer"], { env });
    const document = JSON.parse(json.stdout);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(document.data.findings.map((finding: any) => finding.code)).to.deep.equal(["no_telemetry"]);
    expect(document.data.findings[0].follow_up).to.deep.equal([
      "obs traces --service mailer --since 30m",
      "obs logs --service mailer --since 30m",
    ]);
  });

  it("ends with exit 1 only when findings meet --fail-on", async () => {
    const env = { OBS_MONITOR_URL: anomalous.url };
    const code = async (...args: string[]) => (await runObs(["audit", "--until", until, ...args], { env })).code;
    expect(await code()).to.equal(0);
    expect(await code("--fail-on", "error")).to.equal(1);
    // shop has a latency regression and a warning-level log burst: regressions, not errors.
    expect(await code("--service", "shop", "--fail-on", "error")).to.equal(0);
    expect(await code("--service", "shop", "--fail-on", "regression")).to.equal(1);
    expect(await code("--service", "mailer", "--fail-on", "regression")).to.equal(0);
    const failed = await runObs(["audit", "--until", until, "--fail-on", "error", "--json"], { env });
    const document = JSON.parse(failed.stdout);
    expect(document.error).to.deep.equal({
      code: "audit_failed",
      message: "1 finding at or above --fail-on error: error_trace",
    });
    expect(document.data.findings.length).to.be.greaterThan(0);
    const steady = await runObs(["audit", "--until", until, "--fail-on", "regression"], {
      env: { OBS_MONITOR_URL: control.url },
    });
    expect(steady.code).to.equal(0);
  });

  it("refuses bad parameters with 400 and exit 2", async () => {
    for (const query of [
      "lookbackMinutes=0",
      "baselineMinutes=2000",
      "durationMin=-1",
      "until=yesterday",
      "colour=red",
    ]) {
      expect((await http(`${anomalous.url}/api/audit?${query}`)).status, query).to.equal(400);
    }
    const env = { OBS_MONITOR_URL: anomalous.url };
    expect((await runObs(["audit", "--since", "25h"], { env })).code).to.equal(2);
    expect((await runObs(["audit", "--fail-on", "always"], { env })).code).to.equal(2);
  });
});

/** An OTLP/JSON request with one gauge of `service`, a point at each time (ms). */
function gaugeRequest(service: string, timesMs: number[]) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
        scopeMetrics: [
          {
            scope: { name: "meter" },
            metrics: [
              {
                name: "queue.depth",
                unit: "{item}",
                gauge: {
                  dataPoints: timesMs.map((ms, i) => ({
                    timeUnixNano: (BigInt(ms) * 1_000_000n).toString(),
                    asInt: String(i % 7),
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("audit: metric points are telemetry (real obsd)", function () {
  this.timeout(60_000);
  const untilMs = Date.now() - 1_000;
  const until = new Date(untilMs).toISOString();
  const WINDOW_MS = 15 * 60_000;
  /** Every 30 s over (fromMs, toMs]. */
  const every30s = (fromMs: number, toMs: number) =>
    Array.from({ length: Math.floor((toMs - fromMs) / 30_000) }, (_, i) => fromMs + (i + 1) * 30_000);
  const baseline = every30s(untilMs - 2 * WINDOW_MS, untilMs - WINDOW_MS);
  const both = every30s(untilMs - 2 * WINDOW_MS, untilMs - 60_000);
  let obsd: CollectorProcess;
  let report: any;

  before(async () => {
    obsd = await startCollectorProcess();
    // meter: metrics only, and they stop at the end of the baseline.
    await postJson(`${obsd.url}/v1/metrics`, gaugeRequest("meter", baseline));
    // pump: metrics only, in both windows. mixed: spans in the baseline only, metrics in both.
    await postJson(`${obsd.url}/v1/metrics`, gaugeRequest("pump", both));
    await postJson(`${obsd.url}/v1/metrics`, gaugeRequest("mixed", both));
    const spans = baseline.map((ms, i) => ({
      traceId: (i + 1).toString(16).padStart(32, "0"),
      spanId: (i + 1).toString(16).padStart(16, "0"),
      name: "tick",
      startNs: BigInt(ms) * 1_000_000n,
      durationNs: 1_000_000n,
    }));
    await postJson(`${obsd.url}/v1/traces`, traceRequest("mixed", spans));
    report = (await http(`${obsd.url}/api/audit?until=${until}`)).json().data;
  });
  after(async () => {
    await obsd.stop();
  });

  it("names the service whose metrics stopped, with its points as figures and an obs metrics follow-up", () => {
    expect(report.findings.map((finding: any) => [finding.code, finding.service])).to.deep.equal([
      ["no_telemetry", "meter"],
    ]);
    const [finding] = report.findings;
    expect(finding.confidence).to.equal("high");
    expect(finding.baseline).to.deep.equal({ spans: 0, logs: 0, points: baseline.length });
    expect(finding.summary).to.equal(
      `meter emitted 0 spans, 0 logs and ${baseline.length} metric points in the 15m baseline and nothing in the last 15m.`,
    );
    expect(finding.summary).to.not.match(CAUSAL);
    expect(finding.evidence.notes).to.deep.equal([`last telemetry at ${new Date(baseline.at(-1) ?? 0).toISOString()}`]);
    expect(finding.followUp).to.deep.equal([
      "obs traces --service meter --since 30m",
      "obs logs --service meter --since 30m",
      "obs metrics --service meter --since 30m",
    ]);
  });

  it("pastes its follow-up: obs metrics lists the metric the service sent", async () => {
    const listed = await runObs(["metrics", "--service", "meter", "--since", "30m", "--json"], {
      env: { OBS_MONITOR_URL: obsd.url },
    });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).data.map((metric: any) => metric.name)).to.deep.equal(["queue.depth"]);
  });

  it("answers the same twice, and only the named service's metrics with --service", async () => {
    const again = (await http(`${obsd.url}/api/audit?until=${until}`)).json().data;
    expect(JSON.stringify(again)).to.equal(JSON.stringify(report));
    const pump = (await http(`${obsd.url}/api/audit?until=${until}&service=pump`)).json().data;
    expect(pump.findings).to.deep.equal([]);
    const meter = (await http(`${obsd.url}/api/audit?until=${until}&service=meter`)).json().data;
    expect(meter.findings.map((finding: any) => finding.service)).to.deep.equal(["meter"]);
  });
});
