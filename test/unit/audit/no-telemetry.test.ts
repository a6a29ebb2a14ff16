import { expect } from "chai";
import {
  type AuditWindow,
  emptyFacts,
  MAX_POINTS_COUNTED,
  type ServiceActivity,
} from "../../../daemon/audit/audit-model.js";
import { runAudit } from "../../../daemon/audit/run-audit.js";

const MINUTE = 60_000_000_000n;
const window: AuditWindow = {
  untilNs: 1_000n * MINUTE,
  currentFromNs: 985n * MINUTE,
  baselineFromNs: 970n * MINUTE,
  graceNs: MINUTE,
};

function activity(overrides: Partial<ServiceActivity>): ServiceActivity {
  return {
    service: "meter",
    currentSpans: 0,
    currentLogs: 0,
    baselineSpans: 0,
    baselineLogs: 0,
    currentSeries: 0,
    baselineSeries: 0,
    baselinePoints: 0,
    baselineLastNs: null,
    ...overrides,
  };
}

const audit = (...list: ServiceActivity[]) => runAudit({ ...emptyFacts(), activity: list }, window).findings;

describe("no_telemetry counts metrics as telemetry", () => {
  it("names a service that sent only metric points and stopped, with the points as figures", () => {
    const [finding, ...others] = audit(
      activity({ baselineSeries: 3, baselinePoints: 270, baselineLastNs: 984n * MINUTE }),
    );
    expect(others).to.deep.equal([]);
    expect(finding).to.deep.include({
      code: "no_telemetry",
      severity: "warning",
      confidence: "high",
      service: "meter",
    });
    expect(finding?.summary).to.equal(
      "meter emitted 0 spans, 0 logs and 270 metric points in the 15m baseline and nothing in the last 15m.",
    );
    expect(finding?.current).to.deep.equal({ spans: 0, logs: 0, points: 0 });
    expect(finding?.baseline).to.deep.equal({ spans: 0, logs: 0, points: 270 });
    expect(finding?.evidence.notes).to.deep.equal([`last telemetry at ${new Date(984 * 60_000).toISOString()}`]);
    expect(finding?.followUp).to.deep.equal([
      "obs traces --service meter --since 30m",
      "obs logs --service meter --since 30m",
      "obs metrics --service meter --since 30m",
    ]);
  });

  it("does not call a service silent while its metrics arrive, whatever else stopped", () => {
    expect(audit(activity({ currentSeries: 1, baselineSeries: 1, baselineSpans: 40, baselineLogs: 12 }))).to.deep.equal(
      [],
    );
    expect(audit(activity({ currentSeries: 2 }))).to.deep.equal([]);
  });

  it("grows confidence with the points as with spans and logs", () => {
    const confidence = (points: number) =>
      audit(activity({ baselineSeries: 1, baselinePoints: points }))[0]?.confidence;
    expect([confidence(4), confidence(5), confidence(19), confidence(20)]).to.deep.equal([
      "low",
      "medium",
      "medium",
      "high",
    ]);
    const mixed = audit(activity({ baselineSpans: 2, baselineLogs: 2, baselineSeries: 1, baselinePoints: 16 }));
    expect(mixed[0]?.confidence).to.equal("high");
  });

  it("keeps the spans-and-logs wording when no metric point was sent, and says when points were cut", () => {
    const [plain] = audit(activity({ baselineSpans: 7, baselineLogs: 1 }));
    expect(plain?.summary).to.equal("meter emitted 7 spans and 1 log in the 15m baseline and nothing in the last 15m.");
    expect(plain?.baseline).to.deep.equal({ spans: 7, logs: 1, points: 0 });
    expect(plain?.followUp).to.have.length(2);
    const [many] = audit(activity({ baselineSeries: 900, baselinePoints: MAX_POINTS_COUNTED }));
    expect(many?.summary).to.equal(
      `meter emitted 0 spans, 0 logs and at least ${MAX_POINTS_COUNTED} metric points in the 15m baseline and nothing in the last 15m.`,
    );
  });
});

describe("the audit's bound on findings per code", () => {
  it("reports at most 50 findings of a code, the most confident first, in the report's order, and says it cut", () => {
    // 59 services that sent 10 points (medium confidence), and the last by name sent 100 (high).
    const silent = Array.from({ length: 60 }, (_, i) =>
      activity({
        service: `svc-${String(i).padStart(2, "0")}`,
        baselineSeries: 1,
        baselinePoints: i === 59 ? 100 : 10,
      }),
    );
    const report = runAudit({ ...emptyFacts(), activity: silent }, window);
    expect(report.findings).to.have.length(50);
    expect(report.findings.map((f) => f.service)).to.deep.equal(
      [...silent.slice(0, 49), silent[59]].map((a) => a?.service),
    );
    expect(report.counts.warning).to.equal(50);
    expect(report.truncated).to.deep.equal(["no_telemetry: the 50 most confident of 60 findings are reported"]);
    // Under the bound, nothing is cut or said.
    expect(runAudit({ ...emptyFacts(), activity: silent.slice(0, 50) }, window).truncated).to.deep.equal([]);
  });
});
