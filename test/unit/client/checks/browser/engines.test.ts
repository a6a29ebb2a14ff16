import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { locateEngine } from "../../../../../client/checks/browser/engines.js";
import { remoteOptions } from "../../../../../client/checks/browser/session-capabilities.js";
import { tempDir } from "../../../../helpers/temp-dir.js";

describe("browser engines: programs and session capabilities", () => {
  let dir: ReturnType<typeof tempDir>;
  const program = (name: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o755);
    return path;
  };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("finds Firefox and geckodriver from the environment, and names both packages when they are missing", () => {
    const env = { PATH: "", OBS_FIREFOX_PATH: program("firefox"), OBS_GECKODRIVER_PATH: program("geckodriver") };
    expect(locateEngine("engine_b", env, false)).to.deep.equal({
      engine: "engine_b",
      browser: env.OBS_FIREFOX_PATH,
      driver: env.OBS_GECKODRIVER_PATH,
    });
    expect(() =>
      locateEngine("engine_b", { PATH: "", OBS_FIREFOX_PATH: join(dir.path, "none"), OBS_GECKODRIVER_PATH: "" }, false),
    ).to.throw(
      /^engine_b \(Firefox\) needs firefox-esr and geckodriver: install Firefox with `apt-get install firefox-esr`/,
    );
  });

  it("runs WebKit under xvfb-run without a display, and asks for xvfb when it is missing", () => {
    const env = {
      PATH: dir.path,
      OBS_MINIBROWSER_PATH: program("MiniBrowser"),
      OBS_WEBKITWEBDRIVER_PATH: program("WebKitWebDriver"),
      DISPLAY: "",
    };
    expect(() => locateEngine("engine_c", env, false)).to.throw(
      /needs xvfb: install with `apt-get install webkit2gtk-driver xvfb`/,
    );
    const xvfbRun = program("xvfb-run");
    expect(locateEngine("engine_c", env, false)).to.deep.include({ engine: "engine_c", xvfbRun });
    // Headed on a real display: no virtual one.
    expect(locateEngine("engine_c", { ...env, DISPLAY: ":0" }, true)).to.deep.include({ xvfbRun: null });
  });

  it("gives each engine the capabilities its driver expects", () => {
    const shape = { headed: false, viewport: { width: 1024, height: 700 } };
    const chromium = remoteOptions({ engine: "engine_a", browser: "/c", driver: "/cd" }, shape).capabilities;
    expect(chromium["goog:chromeOptions"]).to.deep.include({ binary: "/c" });
    expect((chromium["goog:chromeOptions"] as { args: string[] }).args).to.include.members([
      "--headless=new",
      "--window-size=1024,700",
    ]);
    // A profile of obs's own, so nothing is left in the system temp folder.
    const withProfile = remoteOptions({ engine: "engine_a", browser: "/c", driver: "/cd" }, shape, {
      profileDir: "/tmp/obs-browser-x/profile",
    }).capabilities["goog:chromeOptions"] as { args: string[] };
    expect(withProfile.args).to.include("--user-data-dir=/tmp/obs-browser-x/profile");
    // obs runs chromedriver itself, on loopback: webdriverio is told where, and starts nothing.
    expect(
      remoteOptions({ engine: "engine_a", browser: "/c", driver: "/cd" }, shape, { driverPort: 9515 }),
    ).to.deep.include({ protocol: "http", hostname: "127.0.0.1", port: 9515, path: "/" });
    expect(chromium).not.to.have.property("wdio:chromedriverOptions");
    expect(chromium["goog:chromeOptions"]).to.deep.include({
      prefs: { "profile.password_manager_leak_detection": false },
    });
    expect((chromium["goog:chromeOptions"] as { args: string[] }).args.some((arg) => arg.startsWith("--user-data-dir")))
      .to.be.false;
    expect(remoteOptions({ engine: "engine_b", browser: "/f", driver: "/g" }, shape).capabilities).to.deep.equal({
      browserName: "firefox",
      "moz:firefoxOptions": { binary: "/f", args: ["-headless", "--width=1024", "--height=700"] },
      "wdio:geckodriverOptions": { binary: "/g", host: "127.0.0.1" },
    });
    expect(
      remoteOptions({ engine: "engine_c", browser: "/m", driver: "/w", xvfbRun: null }, shape, { driverPort: 4567 }),
    ).to.deep.equal({
      protocol: "http",
      hostname: "127.0.0.1",
      port: 4567,
      path: "/",
      capabilities: { "webkitgtk:browserOptions": { binary: "/m", args: ["--automation"] } },
    });
    const container = remoteOptions(
      { engine: "engine_a", webdriverUrl: "http://127.0.0.1:49153/", browserName: "chrome" },
      shape,
    );
    expect(container).to.deep.include({ protocol: "http", hostname: "127.0.0.1", port: 49153, path: "/" });
    expect(container.capabilities.browserName).to.equal("chrome");
    expect(container.capabilities["goog:chromeOptions"]).to.not.have.property("binary");
  });
});
