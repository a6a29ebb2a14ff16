import { expect } from "chai";
import { postJson } from "../helpers/http.js";
import { logsRequest } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendUiData } from "../helpers/ui-data.js";

const MS = 1_000_000n;
const nowNs = () => BigInt(Date.now()) * MS;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the web UI's live updates in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;

  before(async () => {
    ui = await startUiSession();
    await sendUiData(ui.collector.url);
  });
  after(async () => {
    await ui?.close();
  });

  /** When the page started each request to the logs route (ms since navigation), by the browser's own record. */
  const logRequestStarts = async (): Promise<number[]> =>
    (await ui.browser.execute(
      "return performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/logs')).map((entry) => entry.startTime)",
    )) as unknown as number[];
  const updatedText = () => ui.browser.$(".live-toggle .muted").getText();
  const bodies = async (): Promise<string[]> =>
    (await ui.browser.execute(
      'return Array.from(document.querySelectorAll("table.logs-table tr.log-row .log-message"), (cell) => cell.innerText)',
    )) as unknown as string[];

  it("starts a live view's requests at least a second apart", async () => {
    await ui.open("/ui/logs");
    await ui.browser.waitUntil(async () => (await logRequestStarts()).length >= 4, { timeout: 15_000 });
    const starts = await logRequestStarts();
    const gaps = starts.slice(1).map((start, i) => start - (starts[i] as number));
    // The timer may fire a hair early by the page's clock; never a whole tick (200 ms) early.
    expect(Math.min(...gaps), `gaps ${gaps.join(", ")}`).to.be.at.least(990);
  });

  it("sends nothing when paused, and asks again when resumed", async () => {
    await ui.open("/ui/logs");
    // Pause right after an answer arrived, so that no request is under way.
    const shown = await updatedText();
    await ui.browser.waitUntil(async () => (await updatedText()) !== shown, { timeout: 10_000 });
    const before = (await logRequestStarts()).length;
    await ui.browser.$("button=❚❚ Pause").click();
    await sleep(2500);
    expect((await logRequestStarts()).length, "requests while paused").to.equal(before);
    await ui.browser.$("button=▶ Live").click();
    await ui.browser.waitUntil(async () => (await logRequestStarts()).length > before, {
      timeout: 5000,
      timeoutMsg: "no request after resuming",
    });
  });

  it("keeps every row shown when Load more is asked while a live refresh is under way", async () => {
    const older = Array.from({ length: 110 }, (_, k) => ({
      timeNs: nowNs() - 600_000n * MS - BigInt(k) * 1000n * MS,
      body: `older ${k}`,
    }));
    expect((await postJson(`${ui.collector.url}/v1/logs`, logsRequest("paging", older))).status).to.equal(200);
    await ui.open("/ui/logs?service=paging");
    await ui.browser.waitUntil(async () => (await bodies()).length === 100, { timeout: 10_000 });
    const firstPage = await bodies();
    // Hold the next live refresh of the first page (no cursor) until newer logs are in the store,
    // and ask for more while it is under way: its answer would end 5 rows earlier than the cursor.
    await ui.browser.execute(`
      const fetchOriginal = window.fetch;
      window.__held = 0;
      window.fetch = (input, init) => {
        const url = String(input);
        if (url.includes("/api/logs") && !url.includes("cursor=")) {
          window.__held++;
          return new Promise((resolve) => setTimeout(resolve, 1500)).then(() => fetchOriginal(input, init));
        }
        return fetchOriginal(input, init);
      };
    `);
    await ui.browser.waitUntil(async () => Number(await ui.browser.execute("return window.__held")) > 0, {
      timeout: 5000,
    });
    const newer = Array.from({ length: 5 }, (_, k) => ({ timeNs: nowNs() - BigInt(k) * MS, body: `newer ${k}` }));
    expect((await postJson(`${ui.collector.url}/v1/logs`, logsRequest("paging", newer))).status).to.equal(200);
    await ui.browser.$(".load-more").$("button=Load more").click();
    await ui.browser.waitUntil(async () => (await bodies()).length >= 110, { timeout: 10_000 });
    await sleep(2500);
    expect(await bodies(), "the held first page, then the next").to.deep.equal(older.map((log) => log.body));
    expect(firstPage).to.deep.equal(older.slice(0, 100).map((log) => log.body));
  });
});
