import { expect } from "chai";
import { tracePath } from "../../shared/ui-links.js";
import { http, postJson } from "../helpers/http.js";
import { logsRequest } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendLogs, sendUiData, type UiData, type UiLog } from "../helpers/ui-data.js";

const MS = 1_000_000n;
const nowNs = () => BigInt(Date.now()) * MS;

/** A body as the view shows it: a string as itself, a map as indented JSON. */
function shownBody(body: UiLog["body"]): string {
  return typeof body === "string" ? body : JSON.stringify(body, null, 2);
}

describe("the web UI's logs view in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;
  let data: UiData;
  /** A log with an attribute, older than the data set's, for the attribute filter. */
  const attrLog = { body: "login by u-42", attributes: { "user.id": "u-42" } };
  let expected: string[];

  before(async () => {
    ui = await startUiSession();
    data = await sendUiData(ui.collector.url);
    const answer = await postJson(
      `${ui.collector.url}/v1/logs`,
      logsRequest("web", [{ timeNs: nowNs() - 600_000n * MS, severityNumber: 5, ...attrLog }]),
    );
    expect(answer.status).to.equal(200);
    expected = [
      ...data.logs.map((log) => ({ at: log.timeNs, body: shownBody(log.body) })),
      { at: 0n, body: attrLog.body },
    ]
      .sort((a, b) => (a.at === b.at ? 0 : a.at > b.at ? -1 : 1))
      .map((log) => log.body);
  });
  after(async () => {
    await ui?.close();
  });

  const rows = () => ui.browser.$$("table.logs-table tr.log-row");
  /** Every row's body text, read in the page in one call (a call per row is slow on long lists). */
  const bodies = async (): Promise<string[]> => {
    const texts: unknown = await ui.browser.execute(
      'return Array.from(document.querySelectorAll("table.logs-table tr.log-row .log-message"), (cell) => cell.innerText)',
    );
    return texts as string[];
  };
  const waitForRows = (count: number) =>
    ui.browser.waitUntil(async () => (await bodies()).length === count, {
      timeout: 10_000,
      timeoutMsg: `expected ${count} log rows`,
    });

  it("lists the data set's logs newest first, with their bodies, severities and services", async () => {
    await ui.open("/ui/logs");
    await waitForRows(expected.length);
    expect(await bodies()).to.deep.equal(expected);
    const warn = data.logs.find((log) => log.severityNumber === 13);
    const warnRow = (await bodies()).indexOf(shownBody(warn?.body ?? ""));
    const severity = await (await rows())[warnRow]?.$(".log-severity span");
    expect(await severity?.getAttribute("class")).to.equal("sev sev-warn");
    expect(await severity?.getText()).to.equal("WARN");
    // The debug record has no severity text: its level comes from the number.
    expect(await (await rows())[expected.length - 1]?.$(".log-severity span").getText()).to.equal("DEBUG");
    await ui.screenshot("logs");
  });

  it("filters by severity: error shows the two failed charges' logs, their map bodies as indented text", async () => {
    await ui.open("/ui/logs");
    await waitForRows(expected.length);
    await ui.browser.$('select[name="severity"]').selectByVisibleText("error");
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/logs?severity=error", { timeout: 5000 });
    await waitForRows(2);
    const failed = data.logs.filter((log) => log.severityNumber === 17).sort((a, b) => (a.timeNs > b.timeNs ? -1 : 1));
    expect(await bodies()).to.deep.equal(failed.map((log) => shownBody(log.body)));
    expect(await bodies()).to.satisfy((texts: string[]) => texts.every((t) => t.includes('"event": "charge.failed"')));
    expect(await ui.browser.$$("tr.log-row .log-message pre").length).to.equal(2);
    expect(await ui.browser.$$("tr.log-row .log-service").map((cell) => cell.getText())).to.deep.equal([
      "payments",
      "payments",
    ]);
    await ui.browser.$("tr.log-row button.expander").click();
    const details = ui.browser.$("tr.log-details-row");
    await details.waitForExist({ timeout: 5000 });
    const text = await details.getText();
    expect(text)
      .to.include("payments-logger")
      .and.include("service.name")
      .and.include(failed[0]?.spanId ?? "?");
    expect(await ui.browser.$("tr.log-row button.expander").getAttribute("aria-expanded")).to.equal("true");
    await ui.screenshot("logs-error-expanded");
  });

  it("links a log to its trace, opening the trace view at its span", async () => {
    const newestFailure = data.logs
      .filter((log) => log.severityNumber === 17)
      .sort((a, b) => (a.timeNs > b.timeNs ? -1 : 1))[0];
    await ui.open("/ui/logs?severity=error");
    await waitForRows(2);
    await ui.browser.$("tr.log-row .log-trace a").click();
    const target = tracePath(newestFailure?.traceId ?? "?", newestFailure?.spanId);
    await ui.browser.waitUntil(async () => (await ui.location()) === target, {
      timeout: 5000,
      timeoutMsg: `expected ${target}`,
    });
  });

  it("reproduces its filters from a deep link, and puts a typed attribute filter in the URL", async () => {
    await ui.open("/ui/logs?service=checkout&contains=cart%201&lookback=15m");
    const matching = data.logs
      .filter((log) => log.service === "checkout" && shownBody(log.body).includes("cart 1"))
      .sort((a, b) => (a.timeNs > b.timeNs ? -1 : 1));
    expect(matching.length).to.be.greaterThan(1);
    await waitForRows(matching.length);
    expect(await bodies()).to.deep.equal(matching.map((log) => shownBody(log.body)));
    expect(await ui.browser.$('select[name="service"]').getValue()).to.equal("checkout");
    expect(await ui.browser.$('input[name="contains"]').getValue()).to.equal("cart 1");
    expect(await ui.browser.$('select[aria-label="Time range"]').getValue()).to.equal("15m");
    // Another filter's rows are no news: they are not marked as new arrivals.
    await ui.browser.$('select[name="service"]').selectByVisibleText("payments");
    await ui.browser.$('input[name="contains"]').clearValue();
    await ui.browser.keys(ui.keys.enter ?? "\uE007");
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/logs?lookback=15m&service=payments", {
      timeout: 5000,
    });
    await waitForRows(data.logs.filter((log) => log.service === "payments").length);
    expect(await ui.browser.$$("tr.log-row.fresh").length).to.equal(0);

    await ui.open("/ui/logs");
    await waitForRows(expected.length);
    await ui.browser.$('input[name="attr"]').setValue("user.id=u-42");
    await ui.browser.keys(ui.keys.enter ?? "\uE007");
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/logs?attr.user.id=u-42", { timeout: 5000 });
    await waitForRows(1);
    expect(await bodies()).to.deep.equal([attrLog.body]);
    expect(await ui.browser.$(".chips").getText()).to.include("user.id=u-42");
  });

  it("shows the collector's own words for a bad filter typed in the URL", async () => {
    const refusal = (await http(`${ui.collector.url}/api/logs?traceId=xyz`)).json().error as string;
    expect(refusal).to.be.a("string").and.not.equal("");
    await ui.open("/ui/logs?traceId=xyz");
    const box = ui.browser.$(".error-box");
    await box.waitForExist({ timeout: 5000 });
    expect(await box.getText()).to.equal(refusal);
    expect(await rows().length).to.equal(0);
  });

  it("is readable in the dark scheme and on a narrow window", async () => {
    await ui.colourScheme("dark");
    try {
      await ui.open("/ui/logs?severity=error");
      await waitForRows(2);
      const background = await ui.browser.execute("return getComputedStyle(document.body).backgroundColor");
      expect(background).to.equal("rgb(20, 23, 28)");
      await ui.browser.$("tr.log-row button.expander").click();
      await ui.screenshot("logs-dark");
    } finally {
      await ui.colourScheme("");
    }
    await ui.browser.setViewport({ width: 390, height: 800 });
    try {
      await ui.open("/ui/logs");
      await waitForRows(expected.length);
      const overflow = await ui.browser.execute(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      expect(overflow).to.equal(0);
      await ui.screenshot("logs-narrow");
    } finally {
      await ui.browser.setViewport({ width: 1280, height: 800 });
    }
  });

  it("keeps a severity text inside its column, cutting one too long with its whole text in a title", async () => {
    const long = "SEVERITY_AS_SOME_FRAMEWORK_SPELLS_IT_OUT";
    const texts = ["Information", "EMERGENCY", "CRITICAL", long];
    const at = nowNs() - 900_000n * MS;
    await sendLogs(
      ui.collector.url,
      texts.map((severityText, k) => ({
        service: "severities",
        timeNs: at + BigInt(k) * MS,
        severityNumber: 9 + k * 4,
        severityText,
        body: `said at ${severityText}`,
      })),
    );
    await ui.open("/ui/logs?service=severities");
    await waitForRows(texts.length);
    const cells = (await ui.browser.execute(`
      return Array.from(document.querySelectorAll("table.logs-table tr.log-row td.log-severity"), (cell) => ({
        text: cell.innerText.trim(),
        title: cell.title,
        fits: cell.scrollWidth <= cell.clientWidth,
        cut: getComputedStyle(cell).textOverflow === "ellipsis" && getComputedStyle(cell).overflowX === "hidden",
      }));
    `)) as unknown as { text: string; title: string; fits: boolean; cut: boolean }[];
    // Newest first: the long text, then the others in the reverse of their sending.
    expect(cells.map((cell) => cell.title)).to.deep.equal([...texts].reverse());
    for (const cell of cells.slice(1)) expect(cell.fits, `${cell.text} fits its column`).to.equal(true);
    expect(cells[0]?.fits, "the long text does not fit").to.equal(false);
    expect(cells[0]?.cut, "the long text is cut with an ellipsis").to.equal(true);
    await ui.screenshot("logs-severity-texts");
  });

  it("pages older logs with the API's cursor, holding the live tail while they are shown", async () => {
    const bulk = Array.from({ length: 120 }, (_, k) => ({
      timeNs: nowNs() - 1_200_000n * MS - BigInt(k) * 1000n * MS,
      body: `bulk ${k}`,
    }));
    expect((await postJson(`${ui.collector.url}/v1/logs`, logsRequest("bulk", bulk))).status).to.equal(200);
    await ui.open("/ui/logs?service=bulk");
    await waitForRows(100);
    expect(await ui.browser.$(".load-more").getText()).to.include("100 logs shown; more in the window");
    await ui.browser.$(".load-more").$("button=Load more").click();
    await waitForRows(120);
    expect(await bodies()).to.deep.equal(bulk.map((log) => log.body));
    expect(await ui.browser.$(".load-more button").isExisting()).to.equal(false);
    await ui.browser.$(".cap-notice").$("button=Back to the newest").click();
    await waitForRows(100);
  });

  it("tails live: a log sent after the page opened appears on top, marked; paused, it does not", async () => {
    await ui.open("/ui/logs?service=web");
    await ui.browser.waitUntil(async () => (await rows().length) > 0, { timeout: 10_000 });
    await sendLogs(ui.collector.url, [
      { service: "web", timeNs: nowNs(), severityNumber: 9, severityText: "INFO", body: "live tail arrived" },
    ]);
    await ui.browser.waitUntil(async () => (await bodies())[0] === "live tail arrived", {
      timeout: 10_000,
      timeoutMsg: "the new log did not appear",
    });
    expect(await (await rows())[0]?.getAttribute("class")).to.include("fresh");
    expect(await ui.location()).to.equal("/ui/logs?service=web");

    await ui.browser.$(".live-toggle button").click();
    expect(await ui.browser.$(".live-toggle button").getAttribute("aria-pressed")).to.equal("false");
    // A request under way when the button was pressed still answers; let it land before
    // sending, or its answer may already carry the log sent while paused.
    await ui.browser.pause(1000);
    await sendLogs(ui.collector.url, [
      { service: "web", timeNs: nowNs(), severityNumber: 9, severityText: "INFO", body: "sent while paused" },
    ]);
    // Three live intervals: a live view would have asked again and shown it.
    await ui.browser.pause(3000);
    expect((await bodies())[0]).to.equal("live tail arrived");
    await ui.browser.$(".live-toggle button").click();
    await ui.browser.waitUntil(async () => (await bodies())[0] === "sent while paused", {
      timeout: 10_000,
      timeoutMsg: "resumed, the log sent while paused did not appear",
    });
  });
});
