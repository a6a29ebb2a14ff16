/** Starts and ends one Chromium session through webdriverio and the system's chromedriver. */
import type { Browser } from "webdriverio";
import type { ChromiumBinaries } from "./engines.js";

export interface SessionOptions {
  binaries: ChromiumBinaries;
  headed: boolean;
  viewport: { width: number; height: number } | null;
}

export interface BrowserSession {
  browser: Browser;
  /** webdriverio's key codes by lower-case name (enter, tab, arrowdown, ...). */
  keys: Record<string, string>;
  /** host:port of Chromium's DevTools endpoint, for the live screencast; null when unknown. */
  debuggerAddress: string | null;
  close(): Promise<void>;
}

export async function startBrowser(options: SessionOptions): Promise<BrowserSession> {
  const { remote, Key } = await import("webdriverio");
  const args = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--disable-extensions"];
  if (!options.headed) args.push("--headless=new");
  if (options.viewport) args.push(`--window-size=${options.viewport.width},${options.viewport.height}`);
  const browser = await remote({
    logLevel: "silent",
    capabilities: {
      browserName: "chrome",
      "goog:chromeOptions": { binary: options.binaries.browser, args },
      "wdio:chromedriverOptions": { binary: options.binaries.driver },
    },
  });
  if (options.viewport) {
    await browser.setViewport?.({ width: options.viewport.width, height: options.viewport.height }).catch(() => {});
  }
  const keys = Object.fromEntries(Object.entries(Key).map(([name, code]) => [name.toLowerCase(), code as string]));
  const chromeOptions = browser.capabilities["goog:chromeOptions"] as { debuggerAddress?: string } | undefined;
  return {
    browser,
    keys,
    debuggerAddress: chromeOptions?.debuggerAddress ?? null,
    close: async () => {
      await browser.deleteSession().catch(() => {});
    },
  };
}
