import { expect } from "chai";
import type { AuditReportRecord } from "../../shared/query-types.js";
import { ALL_ANOMALIES, auditScenario } from "../helpers/audit-scenario.js";
import { http, postJson } from "../helpers/http.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendUiData } from "../helpers/ui-data.js";

describe("the web UI's audit view in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;
  const untilMs = Date.now() - 1_000;
  const until = new Date(untilMs).toISOString();
  const path = `/ui/audit?until=${encodeURIComponent(until)}`;
  let report: AuditReportRecord;

  before(async () => {
    ui = await startUiSession();
    await sendUiData(ui.collector.url, BigInt(untilMs) * 1_000_000n);
    const scenario = auditScenario(untilMs, ALL_ANOMALIES);
    for (const request of scenario.traces)
      expect((await postJson(`${ui.collector.url}/v1/traces`, request)).status).to.equal(200);
    for (const request of scenario.logs)
      expect((await postJson(`${ui.collector.url}/v1/logs`, request)).status).to.equal(200);
    report = (await http(`${ui.collector.url}/api/audit?until=${encodeURIComponent(until)}`)).json().data;
  });
  after(async () => {
    await ui?.close();
  });

  const findings = () => ui.browser.$$("article.finding");

  it("shows the API's findings for the same window, grouped by severity with the API's counts", async () => {
    expect(report.findings.length).to.be.greaterThan(3);
    await ui.open(path);
    await ui.browser.waitUntil(async () => (await findings().length) === report.findings.length, {
      timeout: 15_000,
      timeoutMsg: `expected ${report.findings.length} findings`,
    });
    const codes = await findings().map((card) => card.getAttribute("data-code"));
    expect(codes).to.deep.equal(report.findings.map((finding) => finding.code));
    const headings = await ui.browser.$$(".finding-group h2").map((heading) => heading.getText());
    const expected = (["error", "warning", "info"] as const)
      .filter((severity) => report.counts[severity] > 0)
      .map(
        (severity) =>
          `${{ error: "Errors", warning: "Warnings", info: "Info" }[severity]} (${report.counts[severity]})`,
      );
    expect(headings).to.deep.equal(expected);
    expect(await ui.browser.$(".audit-counts").getText()).to.include(`${report.counts.error} errors`);
    expect(await ui.browser.$(".audit-window").getText()).to.include(`(${report.window.current})`);
    const first = report.findings[0];
    const card = (await findings())[0];
    expect(await card?.$(".finding-summary").getText()).to.equal(first?.summary);
    expect(await card?.$$(".follow-up code").map((code) => code.getText())).to.deep.equal(first?.followUp);
    await ui.screenshot("audit");
    await ui.browser.$(".group-warning").scrollIntoView();
    await ui.screenshot("audit-warnings");
    await ui.browser.setViewport({ width: 390, height: 800 });
    try {
      await ui.browser.$(".finding-group").scrollIntoView();
      const overflow = await ui.browser.execute(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      expect(overflow).to.equal(0);
      await ui.screenshot("audit-narrow");
    } finally {
      await ui.browser.setViewport({ width: 1280, height: 800 });
    }
  });

  it("links evidence: a trace id opens its waterfall, a span id its trace at the span", async () => {
    const withTrace = report.findings.findIndex((finding) => finding.evidence.traceIds.length > 0);
    const traceId = report.findings[withTrace]?.evidence.traceIds[0];
    expect(traceId).to.be.a("string");
    await ui.open(path);
    await ui.browser.waitUntil(async () => (await findings().length) === report.findings.length, { timeout: 15_000 });
    await (await findings())[withTrace]?.$(`a=${traceId}`).click();
    await ui.browser.waitUntil(async () => (await ui.location()) === `/ui/traces/${traceId}`, {
      timeout: 5000,
      timeoutMsg: `expected /ui/traces/${traceId}`,
    });

    const withSpan = report.findings.findIndex((finding) => finding.evidence.spanIds.length > 0);
    const spanId = report.findings[withSpan]?.evidence.spanIds[0] ?? "?";
    const span = (await http(`${ui.collector.url}/api/spans/${spanId}`)).json().data;
    await ui.open(path);
    await ui.browser.waitUntil(async () => (await findings().length) === report.findings.length, { timeout: 15_000 });
    await (await findings())[withSpan]?.$(`a=${spanId}`).click();
    const target = `/ui/traces/${span.traceId}?span=${spanId}`;
    await ui.browser.waitUntil(async () => (await ui.location()) === target, {
      timeout: 5000,
      timeoutMsg: `expected ${target}`,
    });
  });

  it("shows the collector's own words for a window typed wrong in the URL, and the typed value in its control", async () => {
    for (const typed of ["abc", "5m"]) {
      const refusal = (await http(`${ui.collector.url}/api/audit?lookbackMinutes=${typed}`)).json().error as string;
      expect(refusal, typed).to.be.a("string").and.not.equal("");
      await ui.open(`/ui/audit?lookbackMinutes=${typed}`);
      const box = ui.browser.$(".error-box");
      await box.waitForExist({ timeout: 10_000 });
      expect(await box.getText(), typed).to.equal(refusal);
      expect(await findings().length, typed).to.equal(0);
      expect(await ui.browser.$("select[name='lookbackMinutes']").getValue(), typed).to.equal(typed);
    }
    await ui.screenshot("audit-bad-window");
  });

  it("copies a follow-up command, and says plainly when there are no findings", async () => {
    await ui.open(path);
    await ui.browser.waitUntil(async () => (await findings().length) === report.findings.length, { timeout: 15_000 });
    const button = ui.browser.$(".follow-up button");
    expect(await button.getText()).to.equal("Copy");
    await button.click();
    await ui.browser.waitUntil(async () => (await button.getText()) !== "Copy", { timeout: 5000 });

    await ui.open("/ui/audit?until=2020-01-01T00:00:00Z&lookbackMinutes=5");
    const empty = ui.browser.$(".audit-view .empty-state");
    await empty.waitForExist({ timeout: 10_000 });
    expect(await empty.getText()).to.match(/^No findings/);
    expect(await ui.browser.$('select[name="lookbackMinutes"]').getValue()).to.equal("5");
  });
});
