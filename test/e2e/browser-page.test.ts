import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { fingerprintOf } from "../../client/checks/agent/page-snapshot.js";
import { ActionError, BrowserPage } from "../../client/checks/browser/browser-page.js";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateChromium } from "../../client/checks/browser/engines.js";
import { packagePath } from "../../shared/package-root.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("page snapshots and actions in real Chromium", function () {
  this.timeout(60_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let session: BrowserSession;
  let page: BrowserPage;

  before(async () => {
    site = await serveFolder(packagePath("test", "fixtures", "checks", "site"));
    session = await startBrowser({
      launch: { engine: "engine_a", ...locateChromium(process.env) },
      headed: false,
      viewport: { width: 1024, height: 700 },
    });
    page = new BrowserPage(session.browser, site.url, session.keys);
  });
  after(async () => {
    await session?.close();
    await site?.close();
  });

  it("indexes the visible controls with their labels, and never reveals a password", async () => {
    await page.goto("/login.html");
    const before = await page.snapshot();
    expect(before.title).to.equal("Sign in");
    expect(before.elements.map((element) => [element.index, element.tag, element.type, element.label])).to.deep.equal([
      [1, "input", null, "Username"],
      [2, "input", "password", "Password"],
      [3, "button", "submit", "Sign in"],
    ]);
    expect(before.text).to.include("Sign in");
    await page.perform("type", { index: 1, text: "ada" });
    await page.perform("type", { index: 2, text: "s3cret" });
    const typed = await page.snapshot();
    expect(typed.elements[0]?.value).to.equal("ada");
    expect(typed.elements[1]?.value).to.equal(null);
    expect(JSON.stringify(typed)).not.to.include("s3cret");
    expect(fingerprintOf(typed)).not.to.equal(fingerprintOf(before));
  });

  it("clicks, presses keys and selects options by visible text", async () => {
    await page.goto("/todo.html");
    let snapshot = await page.snapshot();
    const field = snapshot.elements.find((element) => element.label === "New todo")?.index;
    const show = snapshot.elements.find((element) => element.label === "Show")?.index;
    await page.perform("type", { index: field, text: "buy milk" });
    expect(await page.perform("press", { key: "Enter" })).to.equal("pressed Enter");
    await page.perform("select", { index: show, option: "Open" });
    snapshot = await page.snapshot();
    expect(snapshot.text).to.include("buy milk");
    expect(snapshot.text).to.include("1 items");
    expect(snapshot.elements.find((element) => element.label === "Show")?.value).to.equal("open");
  });

  it("refuses what it cannot do with a reason the model can act on", async () => {
    await page.goto("/static.html");
    await page.snapshot();
    const missing = await page.perform("click", { index: 42 }).catch((error: Error) => error);
    expect(missing).to.be.instanceOf(ActionError);
    expect((missing as Error).message).to.equal("there is no element [42] in the latest snapshot");
    const key = await page.perform("press", { key: "Hyperspace" }).catch((error: Error) => error);
    expect((key as Error).message).to.match(/unknown key "Hyperspace"/);
    expect(await page.perform("wait", { text: "nothing will ever load", ms: 500 })).to.equal(
      '"nothing will ever load" appeared',
    );
    expect(await page.perform("wait", { text: "never there", ms: 200 })).to.equal('"never there" did not appear');
  });

  it("opens only http and https pages for the model: a local file's text never reaches its snapshot", async () => {
    const folder = tempDir("obs-local-file-");
    try {
      const file = join(folder.path, "private.txt");
      writeFileSync(file, "the local file's private text\n");
      await page.goto("/static.html");
      for (const url of [`file://${file}`, "data:text/html,<p>planted</p>", "javascript:alert(1)"]) {
        const refused = await page.perform("navigate", { url }).catch((error: Error) => error);
        expect(refused, url).to.be.instanceOf(ActionError);
        expect((refused as Error).message).to.match(/^navigate opens only http and https URLs/);
      }
      const snapshot = await page.snapshot();
      expect(snapshot.url).to.equal(`${site.url}/static.html`);
      expect(JSON.stringify(snapshot)).not.to.include("private text");
      expect(await page.perform("navigate", { url: "/todo.html" })).to.equal(`opened ${site.url}/todo.html`);
    } finally {
      folder.cleanup();
    }
  });
});
