import { expect } from "chai";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";

describe("the web UI's page in real Chromium", function () {
  this.timeout(60_000);
  let ui: UiSession;

  before(async () => {
    ui = await startUiSession();
  });
  after(async () => {
    await ui?.close();
  });

  it("loads at / with the views in its header, and a header link changes the address without a reload", async () => {
    await ui.open("/");
    const links = await ui.browser.$$("header nav a").map((link) => link.getText());
    expect(links).to.deep.equal(["Services", "Traces", "Logs", "Metrics", "Audit"]);
    await ui.browser.execute("window.__samePage = true");
    await ui.browser.$("header nav").$("a=Logs").click();
    await ui.browser.waitUntil(async () => (await ui.location()) === "/ui/logs", { timeout: 5000 });
    expect(await ui.browser.execute("return window.__samePage === true")).to.equal(true);
    expect(await ui.browser.$("header nav").$("a=Logs").getAttribute("aria-current")).to.equal("page");
    await ui.browser.back();
    await ui.browser.waitUntil(async () => (await ui.location()) === "/", { timeout: 5000 });
  });

  it("loads a deep link to any view, and names a path that is no view", async () => {
    await ui.open("/ui/audit");
    expect(await ui.browser.$("main h1").getText()).to.equal("Audit");
    await ui.open("/ui/nowhere?x=1");
    expect(await ui.browser.$("main h1").getText()).to.equal("Not found");
    expect(await ui.browser.$("main").getText()).to.include("/ui/nowhere?x=1");
  });
});
