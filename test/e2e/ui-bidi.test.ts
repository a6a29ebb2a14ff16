/**
 * Telemetry text with bidi control characters in real Chromium: a right-to-left override
 * (U+202E) in a service name, a span name, a log body or an attribute value reverses that text
 * alone; the UI isolates each such string, so the override cannot reorder the text around it
 * (a column's other cells, a label, a count beside it).
 */
import { expect } from "chai";
import { postJson } from "../helpers/http.js";
import { hexId, logsRequest } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendSpans } from "../helpers/ui-data.js";

const MS = 1_000_000n;
const RLO = "\u202E";
const SERVICE = `${RLO}evil.exe`;
const TRACE_ID = hexId(0x8100, 16);
const ROOT = hexId(0x8101, 8);

describe("the web UI isolates the direction of telemetry text", function () {
  this.timeout(60_000);
  let ui: UiSession;

  before(async () => {
    ui = await startUiSession();
    const now = BigInt(Date.now()) * MS;
    await sendSpans(ui.collector.url, [
      {
        service: SERVICE,
        traceId: TRACE_ID,
        spanId: ROOT,
        parentSpanId: null,
        name: `GET ${RLO}/fdp.exe`,
        startNs: now - 5000n * MS,
        endNs: now - 4900n * MS,
        error: false,
        attributes: { "file.name": `${RLO}fdp.exe`, "user.id": "u-1" },
      },
      ...[1, 2].map((k) => ({
        service: SERVICE,
        traceId: TRACE_ID,
        spanId: hexId(0x8101 + k, 8),
        parentSpanId: ROOT,
        name: `SELECT ${RLO}sresu`,
        startNs: now - 4990n * MS + BigInt(k) * 10n * MS,
        endNs: now - 4985n * MS + BigInt(k) * 10n * MS,
        error: false,
        attributes: {},
      })),
    ]);
    const logs = logsRequest(SERVICE, [
      {
        timeNs: now - 3000n * MS,
        severityNumber: 9,
        body: `download ${RLO}fdp.exe done`,
        attributes: { "file.name": `${RLO}fdp.exe` },
      },
    ]);
    expect((await postJson(`${ui.collector.url}/v1/logs`, logs)).status).to.equal(200);
  });
  after(async () => {
    await ui?.close();
  });

  /**
   * Each text in the view that holds an override, with whether the element holding it isolates
   * its direction (a `<bdi>`, or `unicode-bidi: isolate`). Option texts are left out: a select's
   * options are drawn by the browser, one a line, and can hold no element.
   */
  async function overrides(): Promise<{ text: string; where: string; isolated: boolean }[]> {
    return (await ui.browser.execute(`
      const found = [];
      const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.data.includes("\\u202E")) continue;
        const element = node.parentElement;
        if (element.closest("option, title")) continue;
        const bidi = getComputedStyle(element).unicodeBidi;
        found.push({
          text: node.data,
          where: element.tagName.toLowerCase() + "." + element.className,
          isolated: bidi === "isolate" || bidi === "isolate-override" || bidi === "plaintext",
        });
      }
      return found;
    `)) as unknown as { text: string; where: string; isolated: boolean }[];
  }

  async function expectIsolated(view: string, least: number): Promise<void> {
    const found = await overrides();
    expect(found.length, `${view}: texts with an override`).to.be.at.least(least);
    for (const text of found) expect(text.isolated, `${view}: ${JSON.stringify(text)}`).to.equal(true);
  }

  it("in the services list", async () => {
    await ui.open("/ui/services");
    await ui.browser.$("table.services-table tbody tr").waitForExist({ timeout: 10_000 });
    await expectIsolated("services", 1);
  });

  it("in the trace search's list", async () => {
    await ui.open("/ui/traces");
    await ui.browser.$("table.trace-table tbody tr").waitForExist({ timeout: 10_000 });
    await expectIsolated("traces", 2);
  });

  it("in a trace's waterfall, its grouped rows and its span's detail", async () => {
    await ui.open(`/ui/traces/${TRACE_ID}?span=${ROOT}`);
    await ui.browser.$(".span-detail").waitForExist({ timeout: 10_000 });
    // The detail's last part, its scope (named after the service), is drawn once the span has loaded.
    await ui.browser.waitUntil(async () => (await overrides()).some((text) => text.text.includes("instrumentation")), {
      timeout: 10_000,
    });
    await expectIsolated("trace", 8);
    await ui.screenshot("bidi-trace");
  });

  it("in the logs list and a log's details", async () => {
    await ui.open("/ui/logs");
    await ui.browser.$("table.logs-table tr.log-row").waitForExist({ timeout: 10_000 });
    await ui.browser.$("tr.log-row button.expander").click();
    await ui.browser.$("tr.log-details-row").waitForExist({ timeout: 5000 });
    await expectIsolated("logs", 3);
    await ui.screenshot("bidi-logs");
  });
});
