import { expect } from "chai";
import { tracePath } from "../../shared/ui-links.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";

/** A trace id no test data holds: the page's fetch answers it with a summary that lacks its counts. */
const BROKEN_TRACE = "0000000000000000000000000000b0b0";

/**
 * Run in the page: answers getTrace for BROKEN_TRACE as a collector of another version might
 * (no spanCount, so the Trace view's header throws while rendering), then follows a link to it
 * the way the back button does (popstate), without reloading the page.
 */
const BREAK_AND_GO = `
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes('/api/traces/${BROKEN_TRACE}')) return realFetch(input, init);
    const data = { traceId: '${BROKEN_TRACE}', startTime: new Date().toISOString(), durationMs: 5, tree: [], services: [] };
    return Promise.resolve(new Response(JSON.stringify({ data, meta: { nextCursor: null } }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    }));
  };
  history.pushState(null, '', '${tracePath(BROKEN_TRACE)}');
  window.dispatchEvent(new PopStateEvent('popstate'));
`;

describe("the web UI when a view fails, in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;

  before(async () => {
    ui = await startUiSession();
  });
  after(async () => {
    await ui?.close();
  });

  it("keeps the page when a view throws: the header, the error's message, a way back that works", async () => {
    await ui.open("/ui/services");
    await ui.browser.execute(BREAK_AND_GO);
    const heading = ui.browser.$("main h1");
    await ui.browser.waitUntil(
      async () => (await heading.isExisting()) && (await heading.getText()) === "This view failed",
      {
        timeout: 5000,
        timeoutMsg: "the failed view was not replaced by its error",
      },
    );
    expect(await ui.browser.$$("header nav a").length).to.equal(5);
    expect(await ui.browser.$("main [role=alert]").getText()).to.include("toLocaleString");
    await ui.screenshot("view-failed");
    await ui.browser.$("main").$("a=← Back to Services").click();
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/services", { timeout: 5000 });
    await ui.browser.waitUntil(async () => (await ui.browser.$("main h1").getText()) === "Services", {
      timeout: 5000,
      timeoutMsg: "the boundary did not let the next view render",
    });
  });

  it("answers a trace address with a malformed escape with the collector's words, not a blank page", async () => {
    await ui.open("/ui/traces/%zz");
    const box = ui.browser.$(".error-box");
    await box.waitForExist({ timeout: 5000 });
    expect(await box.getText()).to.not.equal("");
    expect(await ui.browser.$$("header nav a").length).to.equal(5);
    await ui.screenshot("trace-malformed-address");
  });
});
