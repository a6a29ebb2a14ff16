/** Starts and ends one browser session of the selected engine through webdriverio. */
import type { Browser } from "webdriverio";
import { freePort } from "../../../shared/free-port.js";
import { type DriverProcess, startDriverProcess } from "./driver-process.js";
import type { EngineLaunch } from "./engines.js";
import { remoteOptions, type SessionShape } from "./session-capabilities.js";

export interface SessionOptions extends SessionShape {
  launch: EngineLaunch;
  /** Rewrites the URLs the browser opens (a containerized browser reaches the host by another name). */
  urlForBrowser?: (url: string) => string;
}

export interface BrowserSession {
  browser: Browser;
  /** webdriverio's key codes by lower-case name (enter, tab, arrowdown, ...). */
  keys: Record<string, string>;
  /** host:port of Chromium's DevTools endpoint, for the live screencast; null when unknown. */
  debuggerAddress: string | null;
  urlForBrowser?: (url: string) => string;
  close(): Promise<void>;
}

export async function startBrowser(options: SessionOptions): Promise<BrowserSession> {
  const { remote, Key } = await import("webdriverio");
  const { launch } = options;
  let driver: DriverProcess | null = null;
  let driverPort: number | undefined;
  if (launch.engine === "engine_c" && "xvfbRun" in launch) {
    driverPort = await freePort();
    const driverArgs = [`--port=${driverPort}`, "--host=127.0.0.1"];
    driver = launch.xvfbRun
      ? await startDriverProcess(launch.xvfbRun, ["-a", launch.driver, ...driverArgs], driverPort)
      : await startDriverProcess(launch.driver, driverArgs, driverPort);
  }
  let browser: Browser;
  try {
    browser = await remote({ logLevel: "silent", ...remoteOptions(launch, options, driverPort) });
  } catch (error) {
    await driver?.stop();
    throw error;
  }
  if (options.viewport) {
    const { width, height } = options.viewport;
    // setViewport needs WebDriver BiDi; a classic session (WebKitWebDriver) sizes its window instead.
    await browser
      .setViewport({ width, height })
      .catch(() => browser.setWindowSize(width, height))
      .catch(() => {});
  }
  const keys = Object.fromEntries(Object.entries(Key).map(([name, code]) => [name.toLowerCase(), code as string]));
  const chromeOptions = browser.capabilities["goog:chromeOptions"] as { debuggerAddress?: string } | undefined;
  // Only a debugger on this machine can be screencast; a container's is not reachable.
  const debuggerAddress = "webdriverUrl" in launch ? null : (chromeOptions?.debuggerAddress ?? null);
  return {
    browser,
    keys,
    debuggerAddress,
    urlForBrowser: options.urlForBrowser,
    close: async () => {
      await browser.deleteSession().catch(() => {});
      await driver?.stop();
    },
  };
}
