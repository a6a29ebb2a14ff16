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
      startNs: window.currentFromNs + MINUTE,
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

  it("lists a new signature's examples newest first, ties by trace id, and follows up on the first", () => {
    // Messages that fold to one signature, given in message order; the newest is not first.
    const group = (message: string, trace: string, newestNs: bigint) => ({
      service: "pay",
      operation: "charge",
      message,
      exceptionType: null,
      count: 1,
      example: { traceId: trace.repeat(32), spanId: trace.repeat(16) },
      newestNs,
    });
    const groups = [
      group("card 1 declined", "a", 7n * MINUTE + 985n * MINUTE),
      group("card 2 declined", "b", 9n * MINUTE + 985n * MINUTE),
      group("card 3 declined", "d", 8n * MINUTE + 985n * MINUTE),
      group("card 4 declined", "c", 8n * MINUTE + 985n * MINUTE),
      group("card 5 declined", "e", 1n * MINUTE + 985n * MINUTE),
      group("card 6 declined", "f", 2n * MINUTE + 985n * MINUTE),
    ];
    const [finding] = runAudit(facts({ errorSpans: { current: groups, baseline: [] } }), window).findings;
    expect(finding?.code).to.equal("new_error_signature");
    expect(finding?.evidence.traceIds.map((id) => id[0])).to.deep.equal(["b", "c", "d", "a", "f"]);
    expect(finding?.evidence.spanIds.map((id) => id[0])).to.deep.equal(["b", "c", "d", "a", "f"]);
    expect(finding?.current).to.deep.equal({ spans: 6 });
    expect(finding?.followUp.at(-1)).to.equal(`obs trace ${"b".repeat(32)}`);
  });

  it("lists an incomplete trace's orphans newest first, ties by id, and follows up on the first", () => {
    const orphan = (trace: string, span: string, startNs: bigint) => ({
      traceId: trace.repeat(32),
      spanId: span.repeat(16),
      parentSpanId: "f".repeat(16),
      service: "worker",
      startNs,
      traceEndNs: window.untilNs - 10n * MINUTE,
    });
    const orphans = [
      orphan("a", "1", 986n * MINUTE),
      orphan("c", "2", 988n * MINUTE),
      orphan("b", "4", 988n * MINUTE),
      orphan("b", "3", 988n * MINUTE),
      orphan("d", "5", 987n * MINUTE),
    ];
    const [finding] = runAudit(facts({ orphanSpans: orphans }), window).findings;
    expect(finding?.code).to.equal("incomplete_trace");
    expect(finding?.evidence.traceIds.map((id) => id[0])).to.deep.equal(["b", "c", "d", "a"]);
    expect(finding?.evidence.spanIds.map((id) => id[0])).to.deep.equal(["3", "4", "2", "5", "1"]);
    expect(finding?.followUp).to.deep.equal([`obs trace ${"b".repeat(32)}`, `obs trace ${"c".repeat(32)}`]);
  });
});
