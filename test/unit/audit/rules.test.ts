import { expect } from "chai";
import {
  type AuditFacts,
  type AuditWindow,
  emptyFacts,
  type OperationLatency,
} from "../../../daemon/audit/audit-model.js";
import { MIN_SAMPLES } from "../../../daemon/audit/rules/latency-regression.js";
import { MIN_BURST_LOGS } from "../../../daemon/audit/rules/log-burst.js";
import { runAudit } from "../../../daemon/audit/run-audit.js";
import { bucketsOfMs } from "../../../shared/duration-histogram.js";

const MINUTE = 60_000_000_000n;
const window: AuditWindow = {
  untilNs: 1_000n * MINUTE,
  currentFromNs: 985n * MINUTE,
  baselineFromNs: 970n * MINUTE,
  graceNs: MINUTE,
};

function facts(overrides: Partial<AuditFacts>): AuditFacts {
  return { ...emptyFacts(), ...overrides };
}

function operation(durationMs: number, samples: number): OperationLatency {
  return {
    service: "shop",
    operation: "db.query",
    spans: samples,
    buckets: bucketsOfMs(Array.from({ length: samples }, () => durationMs)),
    slowest: [{ traceId: "a".repeat(32), spanId: "b".repeat(16), durationMs }],
  };
}

describe("audit rules", () => {
  it("never declares a latency regression from fewer than the minimum samples", () => {
    const few = runAudit(
      facts({ latency: { current: [operation(500, MIN_SAMPLES - 1)], baseline: [operation(10, 100)] } }),
      window,
    );
    expect(few.findings).to.deep.equal([]);
    const enough = runAudit(
      facts({ latency: { current: [operation(500, MIN_SAMPLES)], baseline: [operation(10, 100)] } }),
      window,
    );
    expect(enough.findings.map((f) => f.code)).to.deep.equal(["latency_regression"]);
    // p95 comes from 2%-wide duration buckets, so it is within 1% of the true value.
    const { current, baseline } = enough.findings[0] as { current: any; baseline: any };
    expect(current.spans).to.equal(MIN_SAMPLES);
    expect(current.p95Ms).to.be.closeTo(500, 5);
    expect(baseline.spans).to.equal(100);
    expect(baseline.p95Ms).to.be.closeTo(10, 0.1);
  });

  it("ignores small absolute changes even when the ratio is large", () => {
    const jitter = runAudit(
      facts({ latency: { current: [operation(3, 100)], baseline: [operation(1, 100)] } }),
      window,
    );
    expect(jitter.findings).to.deep.equal([]);
  });

  it("needs a minimum number of logs and a rate well above the baseline for a burst", () => {
    const logs = (current: number, baseline: number) => ({
      service: "shop",
      currentWarnings: current,
      currentErrors: 0,
      baselineWarnings: baseline,
      baselineErrors: 0,
      traces: [],
      examples: [],
    });
    expect(runAudit(facts({ logCounts: [logs(MIN_BURST_LOGS - 1, 0)] }), window).findings).to.deep.equal([]);
    expect(runAudit(facts({ logCounts: [logs(30, 20)] }), window).findings).to.deep.equal([]);
    const burst = runAudit(facts({ logCounts: [logs(60, 5)] }), window).findings;
    expect(burst.map((f) => f.code)).to.deep.equal(["log_burst"]);
  });

  it("waits out the grace period before calling a trace incomplete", () => {
    const orphan = (endNs: bigint) => ({
      traceId: "c".repeat(32),
      spanId: "d".repeat(16),
      parentSpanId: "e".repeat(16),
      service: "api",
      traceEndNs: endNs,
    });
    expect(runAudit(facts({ orphanSpans: [orphan(window.untilNs - MINUTE / 2n)] }), window).findings).to.deep.equal([]);
    const settled = runAudit(facts({ orphanSpans: [orphan(window.untilNs - 10n * MINUTE)] }), window).findings;
    expect(settled.map((f) => [f.code, f.confidence])).to.deep.equal([["incomplete_trace", "high"]]);
  });

  it("orders findings by severity, then code, then service, whatever the rule order", () => {
    const report = runAudit(
      facts({
        activity: [
          {
            service: "zeta",
            currentSpans: 0,
            currentLogs: 0,
            baselineSpans: 30,
            baselineLogs: 0,
            currentSeries: 0,
            baselineSeries: 0,
            baselinePoints: 0,
            baselineLastNs: null,
          },
          {
            service: "alpha",
            currentSpans: 0,
            currentLogs: 0,
            baselineSpans: 2,
            baselineLogs: 0,
            currentSeries: 0,
            baselineSeries: 0,
            baselinePoints: 0,
            baselineLastNs: null,
          },
        ],
        errorTraceGroups: [
          {
            rootService: "api",
            rootOperation: "GET /",
            errorTraces: 1,
            traces: 2,
            baselineErrorTraces: 0,
            examples: [],
          },
        ],
      }),
      window,
    );
    expect(report.findings.map((f) => [f.severity, f.code, f.service, f.confidence])).to.deep.equal([
      ["error", "error_trace", "api", "high"],
      ["warning", "no_telemetry", "alpha", "low"],
      ["warning", "no_telemetry", "zeta", "high"],
    ]);
  });
});
