import { expect } from "chai";
import { formatDuration } from "../../client/web/format/time.js";
import { formatPercent, formatRate } from "../../client/web/views/services/service-rows.js";
import { hexId } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendLogs, sendSpans, sendUiData, type UiData } from "../helpers/ui-data.js";

const MS = 1_000_000n;

/** p95 by nearest rank, as the collector computes it. */
function nearestRank(values: readonly number[], percent: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(Math.ceil((percent / 100) * sorted.length) - 1, 0)] as number;
}

describe("the services view in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;
  let data: UiData;

  before(async () => {
    ui = await startUiSession();
    // The data set's newest telemetry (its metric points) is 10 s old for every service; one
    // payments log 2 s ago makes payments the newest, and the others tie, ordered by name.
    const now = Date.now();
    data = await sendUiData(ui.collector.url, BigInt(now - 10_000) * MS);
    await sendLogs(ui.collector.url, [
      {
        service: "payments",
        timeNs: BigInt(now - 2000) * MS,
        severityNumber: 9,
        severityText: "INFO",
        body: "batch settled",
      },
    ]);
  });
  after(async () => {
    await ui?.close();
  });

  /** Each row's cell texts, read in one step so a live refresh cannot interleave. */
  async function rowTexts(): Promise<string[][]> {
    const rows: unknown = await ui.browser.execute(
      `return [...document.querySelectorAll("table.services-table tbody tr")].map((row) =>
        [...row.querySelectorAll("th, td")].map((cell) => cell.innerText.trim()))`,
    );
    return rows as string[][];
  }

  /** The web service's root traces: every trace's root span, as the data set wrote it. */
  function webRoots() {
    return data.spans.filter((span) => span.parentSpanId === null && span.service === "web");
  }

  it("lists each service with its root traces' rate, error rate and p95, newest activity first", async () => {
    await ui.open("/");
    await ui.browser.$("table.services-table tbody tr").waitForExist({ timeout: 10_000 });
    const rows = await rowTexts();
    expect(rows.map((cells) => cells[0])).to.deep.equal(["payments", "checkout", "web"]);
    expect(data.services.slice().sort()).to.deep.equal(["checkout", "payments", "web"]);

    const roots = webRoots();
    const durations = roots.map((span) => Number(span.endNs - span.startNs) / 1e6);
    const failed = roots.filter((span) => span.error).length;
    expect(roots).to.have.length(13);
    expect(rows[2]?.slice(1, 4)).to.deep.equal([
      formatRate(roots.length / 3600),
      formatPercent(failed / roots.length),
      formatDuration(nearestRank(durations, 95)),
    ]);
    // checkout and payments only appear inside web's traces: their rows stay, with dashes.
    for (const cells of rows.slice(0, 2)) expect(cells.slice(1, 4)).to.deep.equal(["–", "–", "–"]);
    for (const cells of rows) expect(cells[4]).to.match(/^\d+s ago$/);
    const title = await ui.browser.$("table.services-table tbody tr time").getAttribute("title");
    expect(title).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    await ui.screenshot("services");
  });

  it("sets the window in the URL and computes the rate over it", async () => {
    await ui.open("/ui/services");
    await ui.browser.$("table.services-table tbody tr").waitForExist({ timeout: 10_000 });
    await ui.browser.$("select[aria-label='Time range']").selectByVisibleText("15m");
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/services?lookback=15m", { timeout: 5000 });
    const expected = formatRate(webRoots().length / 900);
    await ui.browser.waitUntil(async () => (await rowTexts())[2]?.[1] === expected, {
      timeout: 5000,
      timeoutMsg: `web's rate over 15m is not ${expected}`,
    });
  });

  it("opens the traces of a service when it is clicked", async () => {
    await ui.open("/ui/services");
    await ui.browser.execute("window.__samePage = true");
    await ui.browser.$("table.services-table").$("a=checkout").click();
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/traces?service=checkout", { timeout: 5000 });
    expect(await ui.browser.execute("return window.__samePage === true")).to.equal(true);
    expect(await ui.browser.$("main h1").getText()).to.equal("Traces");
  });

  it("keeps the window when it opens a service's traces", async () => {
    await ui.open("/ui/services?lookback=6h");
    await ui.browser.$("table.services-table").$("a=web").waitForExist({ timeout: 10_000 });
    expect(await ui.browser.$("table.services-table").$("a=web").getAttribute("href")).to.equal(
      "/ui/traces?service=web&lookback=6h",
    );
    // A click on the row (not the link) opens the same address.
    await ui.browser.$("table.services-table").$("tr*=web").$("td.num").click();
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/traces?service=web&lookback=6h", {
      timeout: 5000,
    });
    expect(await ui.browser.$("select[aria-label='Time range']").getValue()).to.equal("6h");
    await ui.browser.$("table.trace-table tbody tr").waitForExist({ timeout: 10_000 });
    await ui.screenshot("services-traces-window");
  });

  it("shows a new service live, without a reload", async () => {
    await ui.open("/ui/services");
    await ui.browser.$("table.services-table tbody tr").waitForExist({ timeout: 10_000 });
    await ui.browser.execute("window.__samePage = true");
    const now = BigInt(Date.now()) * MS;
    await sendSpans(ui.collector.url, [
      {
        service: "search",
        traceId: hexId(0x7001, 16),
        spanId: hexId(0x7002, 8),
        parentSpanId: null,
        name: "GET /search",
        startNs: now,
        endNs: now + 40n * MS,
        error: false,
        attributes: {},
      },
    ]);
    // The view refreshes every 4 s; the new service is the newest, so it comes first.
    await ui.browser.waitUntil(async () => (await rowTexts())[0]?.[0] === "search", {
      timeout: 10_000,
      timeoutMsg: "the new service did not appear",
    });
    expect((await rowTexts())[0]?.slice(1, 4)).to.deep.equal([formatRate(1 / 3600), "0%", "40ms"]);
    expect(await ui.browser.execute("return window.__samePage === true")).to.equal(true);
  });

  it("says what to do when the window holds no telemetry", async () => {
    await ui.open("/ui/services?lookback=1s");
    await ui.browser.$(".services-view .empty-state").waitForExist({ timeout: 10_000 });
    expect(await ui.browser.$(".services-view .empty-state").getText()).to.include(
      "No service sent telemetry in the last 1s",
    );
  });
});
