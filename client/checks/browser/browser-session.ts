/** Starts and ends one browser session of the selected engine through webdriverio. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "webdriverio";
import { freePort } from "../../../shared/free-port.js";
import { type DriverProcess, startDriverProcess } from "./driver-process.js";
import type { EngineLaunch } from "./engines.js";
import { type LocalSession, remoteOptions, type SessionShape } from "./session-capabilities.js";

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

/**
 * A local engine's files for one session (Chromium's profile and temp folder, xvfb-run's X
 * authority) go in a folder of obs's own, removed when the session ends: left to themselves,
 * chromedriver, Chromium and xvfb-run each leave theirs in the system temp folder whenever
 * they are stopped.
 */
interface Scratch {
  path: string;
  remove: () => void;
}

function sessionScratch(): Scratch {
  const path = mkdtempSync(join(tmpdir(), "obs-browser-"));
  const remove = () => {
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    } catch {
      // A file the browser still holds; the system's temp cleaning will get it. Never hides why a start failed.
    }
  };
  return { path, remove };
}

type WebKitLaunch = Extract<EngineLaunch, { xvfbRun: string | null }>;

/** WebKitWebDriver, which webdriverio does not start, on a free port; under xvfb-run when needed. */
async function startWebKitDriver(launch: WebKitLaunch, scratch: Scratch): Promise<[DriverProcess, number]> {
  const port = await freePort();
  const driverArgs = [`--port=${port}`, "--host=127.0.0.1"];
  if (!launch.xvfbRun)
    return [await startDriverProcess(launch.driver, driverArgs, port, process.env, scratch.remove), port];
  // Given an authority file, xvfb-run makes no temp folder of its own (which it leaves behind when stopped).
  const authority = join(scratch.path, "Xauthority");
  writeFileSync(authority, "");
  const xvfbArgs = ["-a", "-f", authority, launch.driver, ...driverArgs];
  return [await startDriverProcess(launch.xvfbRun, xvfbArgs, port, process.env, scratch.remove), port];
}

/**
 * chromedriver on a free port. Without --allowed-ips or --allowed-origins it listens on
 * 127.0.0.1 and ::1 only. Its TMPDIR, and so Chromium's, is a folder inside the session's own:
 * Chromium keeps `org.chromium.Chromium.scoped_dir.*` folders there and removes them only when
 * it exits cleanly, and in the system temp folder nothing would take them away.
 */
async function startChromedriver(driver: string, scratch: Scratch): Promise<[DriverProcess, number]> {
  const port = await freePort();
  const temp = join(scratch.path, "tmp");
  mkdirSync(temp);
  // NODE_OPTIONS cleared as webdriverio does for the drivers it starts.
  const env = { ...process.env, NODE_OPTIONS: "", TMPDIR: temp };
  // A driver stopped on Ctrl+C (not by close) still takes the session's folder with it.
  return [await startDriverProcess(driver, [`--port=${port}`], port, env, scratch.remove), port];
}

export async function startBrowser(options: SessionOptions): Promise<BrowserSession> {
  const { remote, Key } = await import("webdriverio");
  const { launch } = options;
  // A browser already running elsewhere keeps its own files; Firefox's profile is not redirected (yet).
  const scratch = "webdriverUrl" in launch || launch.engine === "engine_b" ? null : sessionScratch();
  let driver: DriverProcess | null = null;
  let browser: Browser;
  try {
    const local: LocalSession = {};
    if (scratch && "xvfbRun" in launch) [driver, local.driverPort] = await startWebKitDriver(launch, scratch);
    if (scratch && launch.engine === "engine_a" && !("webdriverUrl" in launch)) {
      [driver, local.driverPort] = await startChromedriver(launch.driver, scratch);
      local.profileDir = join(scratch.path, "profile");
    }
    browser = await remote({ logLevel: "silent", ...remoteOptions(launch, options, local) });
  } catch (error) {
    await driver?.stop();
    scratch?.remove();
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
      scratch?.remove();
    },
  };
}
