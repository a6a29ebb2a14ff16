import { expect } from "chai";
import {
  type Finding,
  figureLabel,
  figureRows,
  formatFigure,
  groupFindings,
} from "../../../../../client/web/views/audit/audit-findings.js";
import { logsLookbackFor, minutesLabel, windowChoices } from "../../../../../client/web/views/audit/audit-request.js";

function finding(code: string, severity: string): Finding {
  return {
    code,
    severity,
    confidence: "high",
    service: null,
    operation: null,
    summary: code,
    evidence: { traceIds: [], spanIds: [], logIds: [], notes: [] },
    current: null,
    baseline: null,
    followUp: [],
  };
}

describe("web audit: findings arranged for reading", () => {
  it("groups by severity, error then warning then info, keeping the report's order inside a group", () => {
    const groups = groupFindings([
      finding("incomplete_trace", "info"),
      finding("latency_regression", "warning"),
      finding("error_trace", "error"),
      finding("log_burst", "warning"),
    ]);
    expect(groups.map((g) => [g.severity, g.findings.map((f) => f.code)])).to.deep.equal([
      ["error", ["error_trace"]],
      ["warning", ["latency_regression", "log_burst"]],
      ["info", ["incomplete_trace"]],
    ]);
  });

  it("leaves out empty groups and keeps a severity it does not know, after the others", () => {
    expect(groupFindings([])).to.deep.equal([]);
    expect(groupFindings([finding("x", "notice"), finding("y", "info")]).map((g) => g.severity)).to.deep.equal([
      "info",
      "notice",
    ]);
  });

  it("puts current and baseline figures side by side, the current window's names first", () => {
    expect(figureRows({ p95Ms: 120.5, spans: 40 }, { p95Ms: 11, baselineOnly: 2 })).to.deep.equal([
      { name: "p95Ms", label: "p95 (ms)", current: 120.5, baseline: 11 },
      { name: "spans", label: "spans", current: 40, baseline: null },
      { name: "baselineOnly", label: "baseline only", current: null, baseline: 2 },
    ]);
    expect(figureRows(null, null)).to.deep.equal([]);
  });

  it("names figures in words and writes them plainly", () => {
    expect(figureLabel("errorTraces")).to.equal("error traces");
    expect(figureLabel("rate_per_min")).to.equal("rate per min");
    expect(figureLabel("durationMs")).to.equal("duration (ms)");
    expect(formatFigure(40)).to.equal("40");
    expect(formatFigure(0.123456)).to.equal("0.123");
    expect(formatFigure(null)).to.equal("–");
  });
});

describe("web audit: parameters in the query string", () => {
  it("labels windows and offers the URL's own among the choices", () => {
    expect([5, 60, 90, 1440].map(minutesLabel)).to.deep.equal(["5m", "1h", "90m", "24h"]);
    expect(windowChoices(45)).to.include(45);
    expect(windowChoices(undefined)).to.deep.equal([5, 15, 30, 60, 180, 360, 1440]);
  });

  it("picks the shortest logs window reaching back to the audit's start", () => {
    const now = 10 * 86_400_000;
    expect(logsLookbackFor(now - 14 * 60_000, now)).to.equal("15m");
    expect(logsLookbackFor(now - 30 * 60_000, now)).to.equal("1h");
    expect(logsLookbackFor(now - 3 * 86_400_000, now)).to.equal("24h");
  });
});
