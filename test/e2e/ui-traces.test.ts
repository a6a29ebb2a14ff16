import { expect } from "chai";
import { hexId } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendSpans, sendUiData, type UiData, type UiSpan } from "../helpers/ui-data.js";

const MS = 1_000_000n;

/** A one-span trace of web's, starting now. */
function freshTrace(n: number): UiSpan {
  const start = BigInt(Date.now()) * MS;
  return {
    service: "web",
    traceId: hexId(0x9000 + n, 16),
    spanId: hexId(0x9100 + n, 8),
    parentSpanId: null,
    name: `GET /fresh/${n}`,
    startNs: start,
    endNs: start + 15n * MS,
    error: false,
    attributes: { "http.route": "/fresh" },
  };
}

describe("the traces view in real Chromium", function () {
  this.timeout(90_000);
  let ui: UiSession;
  let data: UiData;
  /** Every trace's id, newest first, as the list orders them. */
  let newestFirst: string[];

  before(async () => {
    ui = await startUiSession();
    data = await sendUiData(ui.collector.url);
    newestFirst = data.spans
      .filter((span) => span.parentSpanId === null)
      .sort((a, b) => Number(b.startNs - a.startNs))
      .map((span) => span.traceId);
  });
  after(async () => {
    await ui?.close();
  });

  /** The trace ids of the rows (or points) matching `selector`, read in one step so a live refresh cannot interleave. */
  async function idsOf(selector: string): Promise<string[]> {
    const ids: unknown = await ui.browser.execute(
      `return [...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.getAttribute("data-trace-id"))`,
    );
    return ids as string[];
  }
  async function textsOf(selector: string): Promise<string[]> {
    const texts: unknown = await ui.browser.execute(
      `return [...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.innerText.trim())`,
    );
    return texts as string[];
  }
  const listed = () => idsOf("table.trace-table tbody tr");
  const plotted = () => idsOf(".trace-scatter a.point");
  async function waitForList(expected: readonly string[], message: string) {
    await ui.browser.waitUntil(async () => JSON.stringify(await listed()) === JSON.stringify(expected), {
      timeout: 10_000,
      timeoutMsg: `${message}: listed ${JSON.stringify(await listed())}`,
    });
  }

  it("lists the window's traces newest first under a scatter with one point per trace", async () => {
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace, newest first");
    expect(await plotted()).to.deep.equal(newestFirst);
    const failedPoints = await idsOf(".trace-scatter a.point.failed");
    expect([...failedPoints].sort()).to.deep.equal([...data.failedTraceIds].sort());
    const loopRow = await textsOf(`tr[data-trace-id="${data.loopTraceId}"] td`);
    expect(loopRow[1]).to.include("web").and.include("GET /orders");
    expect(loopRow[3]).to.equal("51");
    await ui.screenshot("traces");
  });

  it("filters by status in the URL: status=error lists exactly the two failed traces", async () => {
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace first");
    await ui.browser.$("select[name='status']").selectByVisibleText("error");
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/traces?status=error", { timeout: 5000 });
    const failedNewestFirst = newestFirst.filter((id) => data.failedTraceIds.includes(id));
    await waitForList(failedNewestFirst, "the failed traces");
    expect(failedNewestFirst).to.have.length(2);
    const errors = await textsOf("table.trace-table td.errors");
    expect(errors).to.deep.equal(["▲ 2", "▲ 2"]);
    await ui.screenshot("traces-errors");
  });

  it("adds an attribute filter as attr.KEY=VALUE: http.route=/orders lists the loop trace only", async () => {
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace first");
    await ui.browser.$("input[name='attr']").setValue("http.route=/orders");
    await ui.browser.keys(ui.keys.enter as string);
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/traces?attr.http.route=%2Forders", {
      timeout: 5000,
    });
    await waitForList([data.loopTraceId], "the loop trace");
    expect(await ui.browser.$(".attr-chips").getText()).to.include("http.route=/orders");
    await ui.browser.$("button[aria-label='Remove filter http.route=/orders']").click();
    await waitForList(newestFirst, "every trace again");
    expect(await ui.location()).to.equal("/ui/traces");
  });

  it("reproduces a search from a deep link, and applies a typed operation on Enter", async () => {
    await ui.open("/ui/traces?service=web&status=error&lookback=15m");
    const failedNewestFirst = newestFirst.filter((id) => data.failedTraceIds.includes(id));
    await waitForList(failedNewestFirst, "the deep link's search");
    expect(await ui.browser.$("select[name='service']").getValue()).to.equal("web");
    expect(await ui.browser.$("select[name='status']").getValue()).to.equal("error");
    expect(await ui.browser.$("select[aria-label='Time range']").getValue()).to.equal("15m");
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace first");
    await ui.browser.$("input[name='operation']").setValue("GET /orders");
    await ui.browser.keys(ui.keys.enter as string);
    await waitForList([data.loopTraceId], "the GET /orders traces");
    expect(await ui.location()).to.equal("/ui/traces?operation=GET+%2Forders");
  });

  it("opens a trace from its scatter point, by click or by Enter on the focused point", async () => {
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace first");
    const target = data.failedTraceIds[0] as string;
    await ui.browser.$(`.trace-scatter a.point[data-trace-id="${target}"]`).click();
    await ui.browser.waitUntil(async () => (await ui.location()) === `/ui/traces/${target}`, { timeout: 5000 });

    await ui.browser.back();
    await waitForList(newestFirst, "the list again");
    const other = data.loopTraceId;
    const label = await ui.browser.$(`.trace-scatter a.point[data-trace-id="${other}"]`).getAttribute("aria-label");
    expect(label).to.match(/^web GET \/orders, 104ms, started \d\d:\d\d:\d\d\.\d{3}$/);
    await ui.browser.execute(`document.querySelector('.trace-scatter a.point[data-trace-id="${other}"]').focus()`);
    await ui.browser.keys(ui.keys.enter as string);
    await ui.browser.waitUntil(async () => (await ui.location()) === `/ui/traces/${other}`, { timeout: 5000 });
  });

  it("pages with the API's cursors: limit=5 shows 5, Load more adds the next pages", async () => {
    await ui.open("/ui/traces?limit=5");
    await waitForList(newestFirst.slice(0, 5), "the first page");
    await ui.browser.$("button=Load more").click();
    await waitForList(newestFirst.slice(0, 10), "two pages");
    expect(await plotted()).to.have.length(10);
    await ui.browser.$("button=Load more").click();
    await waitForList(newestFirst, "every page");
    expect(await ui.browser.$("button=Load more").isExisting()).to.equal(false);
  });

  it("shows the collector's refusal of a bad durationMin typed in the URL", async () => {
    await ui.open("/ui/traces?durationMin=abc");
    await ui.browser.$(".error-box").waitForExist({ timeout: 10_000 });
    expect(await ui.browser.$(".error-box").getText()).to.include('invalid durationMin "abc"');
  });

  it("says what was searched when nothing matches", async () => {
    await ui.open("/ui/traces?operation=GET+%2Fnowhere&lookback=5m");
    await ui.browser.$(".traces-view .empty-state").waitForExist({ timeout: 10_000 });
    const text = await ui.browser.$(".traces-view .empty-state").getText();
    expect(text).to.include("No traces for root operation GET /nowhere in the last 5m");
    expect(text).to.include("Search the last 15m");
  });

  it("shows new traces live at the top, and not while paused", async () => {
    await ui.open("/ui/traces");
    await waitForList(newestFirst, "every trace first");
    await ui.browser.execute("window.__samePage = true");
    const first = freshTrace(1);
    await sendSpans(ui.collector.url, [first]);
    await waitForList([first.traceId, ...newestFirst], "the new trace on top");

    await ui.browser.$("button=❚❚ Pause").click();
    const second = freshTrace(2);
    await sendSpans(ui.collector.url, [second]);
    // Three live intervals: a running view would have shown it by now.
    await ui.browser.pause(3000);
    expect((await listed())[0]).to.equal(first.traceId);
    await ui.browser.$("button=▶ Live").click();
    await waitForList([second.traceId, first.traceId, ...newestFirst], "the second trace after resuming");
    expect(await ui.browser.execute("return window.__samePage === true")).to.equal(true);
  });

  it("reads in the dark colour scheme and on a narrow window", async () => {
    await ui.colourScheme("dark");
    await ui.open("/ui/traces");
    await ui.browser.$("table.trace-table tbody tr").waitForExist({ timeout: 10_000 });
    const background = await ui.browser.execute("return getComputedStyle(document.body).backgroundColor");
    expect(background).to.equal("rgb(20, 23, 28)");
    await ui.screenshot("traces-dark");
    await ui.colourScheme("");
    await ui.browser.setViewport({ width: 390, height: 800 });
    await ui.open("/ui/traces");
    await ui.browser.$("table.trace-table tbody tr").waitForExist({ timeout: 10_000 });
    const overflow = await ui.browser.execute("return document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).to.be.at.most(0);
    await ui.screenshot("traces-narrow");
    await ui.browser.setViewport({ width: 1280, height: 800 });
  });
});
