import { expect } from "chai";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateEngine } from "../../client/checks/browser/engines.js";
import { commandLine, descendantsNamed, listeningAddresses } from "../helpers/listening-sockets.js";

/** Loopback only: what a WebDriver server on a developer's machine or a CI runner may listen on. */
const LOOPBACK = /^(127\.0\.0\.1|\[::1\]):\d+$/;

/** Starts a session as the runner does and hands back the one driver process it started. */
async function sessionWithDriver(
  engine: "engine_a" | "engine_c",
  driverName: string,
): Promise<{ session: BrowserSession; pid: number }> {
  const before = new Set(await descendantsNamed(driverName));
  const session = await startBrowser({
    launch: locateEngine(engine, process.env, false),
    headed: false,
    viewport: { width: 800, height: 600 },
  });
  const started = (await descendantsNamed(driverName)).filter((pid) => !before.has(pid));
  expect(started, `${driverName} processes this session started`).to.have.length(1);
  return { session, pid: started[0] as number };
}

describe("the WebDriver servers obs starts", function () {
  this.timeout(60_000);

  it("starts chromedriver with real arguments, listening on loopback only", async () => {
    const { session, pid } = await sessionWithDriver("engine_a", "chromedriver");
    try {
      const args = commandLine(pid).slice(1);
      expect(args.join(" ")).not.to.include("[object Object]");
      expect(args.filter((arg) => arg.startsWith("--allowed-"))).to.deep.equal([]);
      expect(args.some((arg) => /^--port=\d+$/.test(arg))).to.equal(true);
      const addresses = listeningAddresses(pid);
      expect(addresses).to.not.be.empty;
      for (const address of addresses) expect(address).to.match(LOOPBACK);
      // The session works through it.
      expect(await session.browser.execute(() => 1 + 1)).to.equal(2);
    } finally {
      await session.close();
    }
    expect(await descendantsNamed("chromedriver")).not.to.include(pid);
  });

  it("starts WebKitWebDriver (under xvfb-run) listening on loopback only", async () => {
    const { session, pid } = await sessionWithDriver("engine_c", "WebKitWebDriver");
    try {
      const addresses = listeningAddresses(pid);
      expect(addresses).to.not.be.empty;
      for (const address of addresses) expect(address).to.match(LOOPBACK);
    } finally {
      await session.close();
    }
  });
});
