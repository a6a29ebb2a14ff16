import { expect } from "chai";
import { type AuditFacts, type AuditWindow, emptyFacts, type Finding } from "../../../daemon/audit/audit-model.js";
import { runAudit } from "../../../daemon/audit/run-audit.js";
import { capText } from "../../../daemon/query/value-cap.js";
import { bucketsOfMs } from "../../../shared/duration-histogram.js";

const MINUTE = 60_000_000_000n;
const window: AuditWindow = {
  untilNs: 1_000n * MINUTE,
  currentFromNs: 985n * MINUTE,
  baselineFromNs: 970n * MINUTE,
  graceNs: MINUTE,
};

const SERVICE = `svc-${"s".repeat(100_000)}`;
const OPERATION = `op-${"o".repeat(100_000)}`;
const MESSAGE = `boom ${"m".repeat(100_000)}`;
const TRACE = "a".repeat(32);
const SPAN = "b".repeat(16);

/** Every rule's facts, each naming the long service and operation. */
function longNamedFacts(): AuditFacts {
  const latency = (durationMs: number) => ({
    service: SERVICE,
    operation: OPERATION,
    spans: 100,
    buckets: bucketsOfMs(Array.from({ length: 100 }, () => durationMs)),
    slowest: [{ traceId: TRACE, spanId: SPAN, durationMs }],
  });
  return {
    ...emptyFacts(),
    errorTraceGroups: [
      {
        rootService: SERVICE,
        rootOperation: OPERATION,
        errorTraces: 1,
        traces: 1,
        baselineErrorTraces: 0,
        examples: [{ traceId: TRACE, spanId: SPAN }],
      },
    ],
    errorSpans: {
      current: [
        {
          service: SERVICE,
          operation: OPERATION,
          message: MESSAGE,
          exceptionType: null,
          count: 1,
          example: { traceId: TRACE, spanId: SPAN },
          newestNs: 990n * MINUTE,
        },
      ],
      baseline: [],
    },
    latency: { current: [latency(500)], baseline: [latency(10)] },
    slowTraceGroups: [
      {
        rootService: SERVICE,
        rootOperation: OPERATION,
        count: 1,
        maxMs: 500,
        baselineCount: 0,
        examples: [{ traceId: TRACE, spanId: SPAN, durationMs: 500 }],
      },
    ],
    logCounts: [
      {
        service: SERVICE,
        currentWarnings: 50,
        currentErrors: 0,
        baselineWarnings: 0,
        baselineErrors: 0,
        traces: [{ traceId: TRACE, logs: 50 }],
        examples: [{ logId: "c".repeat(40), traceId: TRACE, spanId: SPAN }],
      },
    ],
    orphanSpans: [
      {
        traceId: TRACE,
        spanId: SPAN,
        parentSpanId: "d".repeat(16),
        service: SERVICE,
        startNs: 986n * MINUTE,
        traceEndNs: 986n * MINUTE,
      },
    ],
    activity: [
      {
        service: SERVICE,
        currentSpans: 0,
        currentLogs: 0,
        baselineSpans: 30,
        baselineLogs: 0,
        currentSeries: 0,
        baselineSeries: 0,
        baselinePoints: 0,
        baselineLastNs: 980n * MINUTE,
      },
    ],
  };
}

/** Every string in a finding. */
function texts(finding: Finding): string[] {
  return [
    finding.service ?? "",
    finding.operation ?? "",
    finding.summary,
    ...finding.evidence.notes,
    ...finding.followUp,
  ];
}

describe("audit findings are bounded as every answer is", () => {
  const facts = longNamedFacts();
  const findings = [
    ...runAudit(facts, window).findings,
    ...runAudit(facts, { ...window, durationMinMs: 100 }).findings.filter((f) => f.code === "latency_regression"),
  ];

  it("come from every rule", () => {
    expect(findings.map((finding) => finding.code).sort()).to.deep.equal([
      "error_trace",
      "incomplete_trace",
      "latency_regression",
      "latency_regression",
      "log_burst",
      "new_error_signature",
      "no_telemetry",
    ]);
  });

  it("cut a long service name or operation to the cap wherever they name it, summaries included", () => {
    for (const finding of findings) {
      expect(finding.service, finding.code).to.equal(capText(SERVICE));
      if (finding.operation !== null) expect(finding.operation, finding.code).to.equal(capText(OPERATION));
      expect(finding.summary, finding.code).to.include(capText(SERVICE));
      for (const text of texts(finding)) {
        expect(text.includes(SERVICE) || text.includes(OPERATION) || text.includes(MESSAGE), finding.code).to.equal(
          false,
        );
      }
      // Five capped texts at most (service, operation, and a summary naming the service twice
      // and the operation once), against 400,600 characters when each was whole.
      expect(JSON.stringify(finding).length, finding.code).to.be.below(5 * capText(SERVICE).length + 1_000);
    }
  });

  it("leave out a follow-up command that would need a cut value, keeping those that name the evidence", () => {
    const byCode = new Map(findings.map((finding) => [finding.code, finding.followUp]));
    expect(byCode.get("error_trace")).to.deep.equal([`obs trace ${TRACE}`]);
    expect(byCode.get("new_error_signature")).to.deep.equal([`obs trace ${TRACE}`]);
    expect(byCode.get("latency_regression")).to.deep.equal([`obs trace ${TRACE}`]);
    expect(byCode.get("log_burst")).to.deep.equal([`obs trace-logs ${TRACE}`]);
    expect(byCode.get("incomplete_trace")).to.deep.equal([`obs trace ${TRACE}`]);
    expect(byCode.get("no_telemetry")).to.deep.equal([]);
  });
});
