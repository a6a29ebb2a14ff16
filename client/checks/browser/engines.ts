/**
 * Which browser each engine name means and where its programs are. Everything comes from the
 * system's packages or paths the user gives, so nothing is ever downloaded; a missing program
 * is a usage error (exit 2) naming what to install.
 *
 * engine_a: Chromium with chromedriver. engine_b: Firefox with geckodriver. engine_c: WebKitGTK's
 * MiniBrowser driven by WebKitWebDriver, under Xvfb when there is no display. engine_d
 * (experimental): any WebDriver endpoint the user runs, given by OBS_ENGINE_D_URL.
 */

import { findOnPath, isExecutableFile } from "../../executables/find-executable.js";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import type { Engine } from "../config/config-model.js";

/** A browser and the driver webdriverio starts for it. */
export interface DriverBinaries {
  browser: string;
  driver: string;
}

/** How a session of the selected engine is reached. */
export type EngineLaunch =
  | ({ engine: "engine_a" } & DriverBinaries)
  | ({ engine: "engine_b" } & DriverBinaries)
  /** webdriverio does not start WebKitWebDriver: obs runs it, under xvfb-run when `xvfbRun` is set. */
  | ({ engine: "engine_c"; xvfbRun: string | null } & DriverBinaries)
  /** A WebDriver server that is already running: engine_d's own, or a warm container's. */
  | { engine: Engine; webdriverUrl: string; browserName: string };

interface Wanted {
  /** Named in the error when it is missing: the package that provides it. */
  provides: string;
  /** The only path tried when the user names one. */
  override: string | undefined;
  candidates: string[];
  /** Looked up on PATH after the candidates. */
  onPath: string[];
}

function locate(wanted: Wanted, env: NodeJS.ProcessEnv): string | null {
  // A path given in the environment is the only one tried, so a wrong one is reported, not bypassed.
  const candidates = wanted.override
    ? [wanted.override]
    : [...wanted.candidates, ...wanted.onPath.map((name) => findOnPath(name, env.PATH) ?? undefined)];
  return candidates.find(isExecutableFile) ?? null;
}

function missingEngine(engine: Engine, what: string, missing: string[], install: string): LifecycleError {
  return new LifecycleError("invalid_argument", `${engine} (${what}) needs ${missing.join(" and ")}: ${install}`, {
    missing,
  });
}

/** A browser and its driver, both found, or an error naming the packages of those that are not. */
function locatePair(
  engine: Engine,
  what: string,
  wanted: { browser: Wanted; driver: Wanted },
  install: string,
  env: NodeJS.ProcessEnv,
): DriverBinaries {
  const browser = locate(wanted.browser, env);
  const driver = locate(wanted.driver, env);
  if (browser && driver) return { browser, driver };
  const missing = [browser ? null : wanted.browser.provides, driver ? null : wanted.driver.provides];
  throw missingEngine(
    engine,
    what,
    missing.filter((name) => name !== null),
    install,
  );
}

/** Chromium and chromedriver: OBS_CHROMIUM_PATH / OBS_CHROMEDRIVER_PATH when set, else the usual paths, then PATH. */
export function locateChromium(env: NodeJS.ProcessEnv): DriverBinaries {
  return locatePair(
    "engine_a",
    "Chromium",
    {
      browser: {
        provides: "chromium",
        override: env.OBS_CHROMIUM_PATH,
        // Debian's real binary first: /usr/bin/chromium is a shell wrapper that adds start-up work and noise.
        candidates: ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"],
        onPath: ["chromium"],
      },
      driver: {
        provides: "chromium-driver",
        override: env.OBS_CHROMEDRIVER_PATH,
        candidates: ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"],
        onPath: ["chromedriver"],
      },
    },
    "install with `apt-get install chromium chromium-driver` (Debian/Ubuntu), or point OBS_CHROMIUM_PATH and OBS_CHROMEDRIVER_PATH at them",
    env,
  );
}

export function locateFirefox(env: NodeJS.ProcessEnv): DriverBinaries {
  return locatePair(
    "engine_b",
    "Firefox",
    {
      browser: {
        provides: "firefox-esr",
        override: env.OBS_FIREFOX_PATH,
        candidates: ["/usr/lib/firefox-esr/firefox-esr", "/usr/bin/firefox-esr", "/usr/bin/firefox"],
        onPath: ["firefox-esr", "firefox"],
      },
      driver: { provides: "geckodriver", override: env.OBS_GECKODRIVER_PATH, candidates: [], onPath: ["geckodriver"] },
    },
    "install Firefox with `apt-get install firefox-esr`; Debian does not package geckodriver, so put Mozilla's geckodriver release on PATH; or point OBS_FIREFOX_PATH and OBS_GECKODRIVER_PATH at them",
    env,
  );
}

const MINIBROWSER_CANDIDATES = [
  "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
  "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
  "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
  "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
  "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
  "/usr/libexec/webkit2gtk-4.0/MiniBrowser",
];

/** WebKitGTK: MiniBrowser and WebKitWebDriver (Debian's webkit2gtk-driver), and xvfb-run without a display. */
export function locateWebKit(env: NodeJS.ProcessEnv, headed: boolean): DriverBinaries & { xvfbRun: string | null } {
  const wanted: Record<"browser" | "driver" | "xvfb", Wanted> = {
    browser: {
      provides: "MiniBrowser (libwebkit2gtk-4.1-0)",
      override: env.OBS_MINIBROWSER_PATH,
      candidates: MINIBROWSER_CANDIDATES,
      onPath: [],
    },
    driver: {
      provides: "webkit2gtk-driver",
      override: env.OBS_WEBKITWEBDRIVER_PATH,
      candidates: ["/usr/bin/WebKitWebDriver"],
      onPath: ["WebKitWebDriver"],
    },
    xvfb: { provides: "xvfb", override: undefined, candidates: [], onPath: ["xvfb-run"] },
  };
  const browser = locate(wanted.browser, env);
  const driver = locate(wanted.driver, env);
  // MiniBrowser always draws to a display; a headless run gets a virtual one.
  const needsXvfb = !headed || !(env.DISPLAY || env.WAYLAND_DISPLAY);
  const xvfbRun = needsXvfb ? locate(wanted.xvfb, env) : null;
  if (browser && driver && (xvfbRun || !needsXvfb)) return { browser, driver, xvfbRun };
  const missing = [
    driver ? null : wanted.driver,
    browser ? null : wanted.browser,
    needsXvfb && !xvfbRun ? wanted.xvfb : null,
  ];
  throw missingEngine(
    "engine_c",
    "WebKitGTK",
    missing.filter((item) => item !== null).map((item) => item.provides),
    "install with `apt-get install webkit2gtk-driver xvfb` (Debian/Ubuntu), or point OBS_WEBKITWEBDRIVER_PATH and OBS_MINIBROWSER_PATH at them",
  );
}

/** engine_d is experimental: obs drives whatever WebDriver server OBS_ENGINE_D_URL names. */
export function engineDUrl(env: NodeJS.ProcessEnv): string {
  const url = env.OBS_ENGINE_D_URL;
  if (!url) {
    throw new LifecycleError(
      "invalid_argument",
      "engine_d is experimental and not installed locally: start its WebDriver server and set OBS_ENGINE_D_URL (e.g. http://127.0.0.1:4444), or run it with --containerized and OBS_ENGINE_D_IMAGE",
    );
  }
  if (!URL.canParse(url)) throw new LifecycleError("invalid_argument", `OBS_ENGINE_D_URL "${url}" is not a URL`);
  return url;
}

/** Where the selected engine runs locally; throws a usage error naming what is missing. */
export function locateEngine(engine: Engine, env: NodeJS.ProcessEnv, headed: boolean): EngineLaunch {
  switch (engine) {
    case "engine_a":
      return { engine, ...locateChromium(env) };
    case "engine_b":
      return { engine, ...locateFirefox(env) };
    case "engine_c":
      return { engine, ...locateWebKit(env, headed) };
    case "engine_d":
      return { engine, webdriverUrl: engineDUrl(env), browserName: env.OBS_ENGINE_D_BROWSER_NAME ?? "" };
  }
}
