import { expect } from "chai";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendUiData } from "../helpers/ui-data.js";

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

  /** Requests the page made to the logs route so far (the browser's own record of them). */
  const logRequests = async () =>
    Number(
      await ui.browser.execute(
        "return performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/logs')).length",
      ),
    );
  const updatedText = () => ui.browser.$(".live-toggle .muted").getText();

  it("asks a live view's route at most once a second", async () => {
    await ui.open("/ui/logs");
    await ui.browser.waitUntil(async () => (await logRequests()) >= 1, { timeout: 10_000 });
    const before = await logRequests();
    await sleep(3000);
    const asked = (await logRequests()) - before;
    expect(asked, "requests in 3 s").to.be.within(1, 4);
  });

  it("sends nothing when paused, and asks again when resumed", async () => {
    await ui.open("/ui/logs");
    // Pause right after an answer arrived, so that no request is under way.
    const shown = await updatedText();
    await ui.browser.waitUntil(async () => (await updatedText()) !== shown, { timeout: 10_000 });
    const before = await logRequests();
    await ui.browser.$("button=❚❚ Pause").click();
    await sleep(2500);
    expect(await logRequests(), "requests while paused").to.equal(before);
    await ui.browser.$("button=▶ Live").click();
    await ui.browser.waitUntil(async () => (await logRequests()) > before, {
      timeout: 5000,
      timeoutMsg: "no request after resuming",
    });
  });
});
