import { expect } from "chai";
import { MAX_TEXT } from "../../client/checks/agent/page-snapshot.js";
import { BrowserPage, MAX_FULL_TEXT } from "../../client/checks/browser/browser-page.js";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateChromium } from "../../client/checks/browser/engines.js";

describe("a page's full visible text, for grounding a check (real Chromium)", function () {
  this.timeout(60_000);
  let session: BrowserSession | undefined;
  before(async () => {
    session = await startBrowser({
      launch: { engine: "engine_a", ...locateChromium(process.env) },
      headed: false,
      viewport: { width: 1280, height: 900 },
    });
  });
  after(async () => {
    await session?.close();
  });

  it("has the text past the snapshot's cut, and never more than MAX_FULL_TEXT", async () => {
    const open = session as BrowserSession;
    const page = new BrowserPage(open.browser, null, open.keys);
    const filler = "lorem ipsum ".repeat(Math.ceil(MAX_TEXT / 12) + 100);
    await page.goto(`data:text/html,<p>${filler}</p><p>Order 4711 shipped</p><p hidden>not shown</p>`);
    const snapshot = await page.snapshot();
    expect(snapshot.textTruncated).to.equal(true);
    expect(snapshot.text).not.to.include("Order 4711 shipped");
    const full = await page.fullText();
    expect(full).to.include("Order 4711 shipped");
    expect(full).not.to.include("not shown");

    // The page makes its own long text: a URL that long would take the browser seconds to open.
    await page.goto(`data:text/html,<body><script>document.body.append("x".repeat(${MAX_FULL_TEXT + 5_000}))</script>`);
    expect((await page.fullText()).length).to.equal(MAX_FULL_TEXT);
  });
});
