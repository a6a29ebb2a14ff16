/**
 * The web UI's end-to-end harness: a real obsd (its own port and state folder) and a real
 * headless Chromium driven by webdriverio, as the browser checks drive it. Screenshots go to
 * artifacts/ui/ (kept by CI), named after the view, for a person to look at.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "webdriverio";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateChromium } from "../../client/checks/browser/engines.js";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "./collector-process.js";

/** Where the UI tests write their screenshots (CI keeps the folder as an artifact). */
export const UI_SCREENSHOTS = packagePath("artifacts", "ui");

export interface UiSession {
  collector: CollectorProcess;
  browser: Browser;
  /** webdriverio's key codes by lower-case name (arrowdown, arrowleft, enter, ...). */
  keys: Record<string, string>;
  /** Loads a path of the collector (`/ui/traces?service=web`) and waits for the page's first view. */
  open(path: string): Promise<void>;
  /** The current path and query string, as the address bar holds them. */
  location(): Promise<string>;
  /**
   * Sets the page's `prefers-color-scheme` ("" for the system's again) through Chromium's
   * DevTools protocol (chromedriver's goog/cdp/execute): webdriverio's emulate("colorScheme")
   * answers matchMedia only, which stylesheets do not consult.
   */
  colourScheme(scheme: "dark" | "light" | ""): Promise<void>;
  /** Writes artifacts/ui/NAME.png and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface UiSessionOptions {
  /** Viewport size; 1280×800 unless given. */
  viewport?: { width: number; height: number };
  /** A collector already running (shared by several sessions); one is started otherwise. */
  collector?: CollectorProcess;
  /** Arguments for the collector this starts. */
  collectorArgs?: string[];
}

export async function startUiSession(options: UiSessionOptions = {}): Promise<UiSession> {
  const ownCollector = options.collector === undefined;
  const collector = options.collector ?? (await startCollectorProcess({ args: options.collectorArgs ?? [] }));
  let session: BrowserSession;
  try {
    session = await startBrowser({
      launch: { engine: "engine_a", ...locateChromium(process.env) },
      headed: false,
      viewport: options.viewport ?? { width: 1280, height: 800 },
    });
  } catch (error) {
    if (ownCollector) await collector.stop();
    throw error;
  }
  const { browser } = session;
  mkdirSync(UI_SCREENSHOTS, { recursive: true });
  return {
    collector,
    browser,
    keys: session.keys,
    async open(path: string) {
      await browser.url(`${collector.url}${path}`);
      await browser.$("main#main .view").waitForExist({ timeout: 10_000 });
    },
    async location() {
      // The function runs in the page, where `location` is the window's; the test build has no DOM types.
      const href = await browser.execute("return window.location.pathname + window.location.search");
      return String(href);
    },
    async colourScheme(scheme) {
      await browser.sendCommand("Emulation.setEmulatedMedia", {
        features: [{ name: "prefers-color-scheme", value: scheme }],
      });
    },
    async screenshot(name: string) {
      const file = join(UI_SCREENSHOTS, `${name}.png`);
      await browser.saveScreenshot(file);
      return file;
    },
    async close() {
      await session.close();
      if (ownCollector) await collector.stop();
    },
  };
}
