import { expect } from "chai";
import type { AuditWindow } from "../../../daemon/audit/audit-model.js";
import { runAudit } from "../../../daemon/audit/run-audit.js";
import { readAuditFacts } from "../../../daemon/query/sqlite-audit-facts.js";
import { writeGaugeSeries } from "../../helpers/gauge-rows.js";
import { traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MINUTE = 60_000_000_000n;
const SECOND = 1_000_000_000n;
const window: AuditWindow = {
  untilNs: 1_000n * MINUTE,
  currentFromNs: 985n * MINUTE,
  baselineFromNs: 970n * MINUTE,
  graceNs: MINUTE,
};
/** Every 10 s over (from, to]. */
const every10s = (fromNs: bigint, toNs: bigint) => {
  const times: bigint[] = [];
  for (let t = fromNs + 10n * SECOND; t <= toNs; t += 10n * SECOND) times.push(t);
  return times;
};

describe("audit facts: metric points as telemetry (rows written by SQL)", () => {
  let store: TestStore;

  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("counts series per window and the silent service's baseline points, within the half-open windows", () => {
    const baseline = every10s(window.baselineFromNs, window.currentFromNs); // 90 points
    // "meter" reports two series through the baseline and stops exactly at its end.
    writeGaugeSeries(store.db, { service: "meter", name: "queue.depth", attributes: { q: "a" }, timesNs: baseline });
    writeGaugeSeries(store.db, {
      service: "meter",
      name: "queue.depth",
      attributes: { q: "b" },
      timesNs: baseline.slice(0, 10),
    });
    // Points outside both windows are not counted: before the baseline, after `until`.
    writeGaugeSeries(store.db, {
      service: "meter",
      name: "old",
      timesNs: [window.baselineFromNs, window.untilNs + SECOND],
    });
    // "steady" sends only metrics, in both windows.
    writeGaugeSeries(store.db, {
      service: "steady",
      name: "cpu",
      timesNs: every10s(window.baselineFromNs, window.untilNs),
    });

    const facts = readAuditFacts(store.db, window);
    expect(facts.activity.map((a) => [a.service, a.currentSeries, a.baselineSeries, a.baselinePoints])).to.deep.equal([
      ["meter", 0, 2, 100],
      ["steady", 1, 1, null],
    ]);
    expect(facts.activity[0]?.baselineLastNs).to.equal(window.currentFromNs);
    expect(facts.truncated).to.deep.equal([]);

    const findings = runAudit(facts, window).findings;
    expect(findings.map((f) => [f.code, f.service, f.confidence])).to.deep.equal([["no_telemetry", "meter", "high"]]);
    expect(findings[0]?.baseline).to.deep.equal({ spans: 0, logs: 0, points: 100 });
  });

  it("keeps a service whose spans stopped but whose metrics go on out of no_telemetry", () => {
    const at = window.baselineFromNs + MINUTE;
    store.writeTraces(
      traceRequest(
        "api",
        Array.from({ length: 25 }, (_, i) => ({
          traceId: (i + 1).toString(16).padStart(32, "0"),
          spanId: (i + 1).toString(16).padStart(16, "0"),
          name: "GET /",
          startNs: at + BigInt(i) * SECOND,
          durationNs: SECOND,
        })),
      ),
    );
    const spansOnly = runAudit(readAuditFacts(store.db, window), window).findings;
    expect(spansOnly.map((f) => [f.code, f.service])).to.deep.equal([["no_telemetry", "api"]]);
    expect(spansOnly[0]?.baseline).to.deep.equal({ spans: 25, logs: 0, points: 0 });

    writeGaugeSeries(store.db, { service: "api", name: "heap", timesNs: [window.untilNs - MINUTE] });
    const facts = readAuditFacts(store.db, window);
    expect(facts.activity.map((a) => [a.service, a.baselineSpans, a.currentSeries, a.baselinePoints])).to.deep.equal([
      ["api", 25, 1, null],
    ]);
    expect(runAudit(facts, window).findings).to.deep.equal([]);
  });

  it("does not count points marked NO_RECORDED_VALUE as telemetry: a series that went stale is silent", () => {
    // A Prometheus target that stops: its series get one staleness marker each (a Collector
    // sends it as NO_RECORDED_VALUE), then nothing. The marker is not the service speaking.
    const baseline = every10s(window.baselineFromNs, window.currentFromNs);
    const marker = window.currentFromNs + 10n * SECOND;
    writeGaugeSeries(store.db, {
      service: "scraped",
      name: "up",
      timesNs: [...baseline, marker],
      unrecordedNs: [marker],
    });
    const facts = readAuditFacts(store.db, window);
    expect(facts.activity.map((a) => [a.service, a.currentSeries, a.baselineSeries, a.baselinePoints])).to.deep.equal([
      ["scraped", 0, 1, 90],
    ]);
    expect(runAudit(facts, window).findings.map((f) => [f.code, f.service])).to.deep.equal([
      ["no_telemetry", "scraped"],
    ]);
  });

  it("reads only the audited service's series when one is named", () => {
    writeGaugeSeries(store.db, { service: "meter", name: "m", timesNs: [window.currentFromNs - MINUTE] });
    writeGaugeSeries(store.db, { service: "other", name: "m", timesNs: [window.currentFromNs - MINUTE] });
    const facts = readAuditFacts(store.db, { ...window, service: "meter" });
    expect(facts.activity.map((a) => [a.service, a.baselinePoints])).to.deep.equal([["meter", 1]]);
  });
});
