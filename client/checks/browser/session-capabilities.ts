/** What webdriverio's `remote()` is given for each engine. Pure. */
import type { EngineLaunch } from "./engines.js";

export interface SessionShape {
  headed: boolean;
  viewport: { width: number; height: number } | null;
}

export interface RemoteOptions {
  protocol?: "http" | "https";
  hostname?: string;
  port?: number;
  path?: string;
  capabilities: Record<string, unknown>;
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--no-first-run",
  "--disable-extensions",
];

export function chromiumArgs(shape: SessionShape): string[] {
  const args = [...CHROMIUM_ARGS];
  if (!shape.headed) args.push("--headless=new");
  if (shape.viewport) args.push(`--window-size=${shape.viewport.width},${shape.viewport.height}`);
  return args;
}

/** What obs set up on this machine for one session of a local engine. */
export interface LocalSession {
  /**
   * Where obs started the engine's driver itself (engine_a, engine_c), on 127.0.0.1. obs starts
   * chromedriver rather than letting webdriverio do it: @wdio/utils turns every key of
   * `wdio:chromedriverOptions` into a command-line flag (its `spawnOpts`, the only way to give
   * chromedriver an environment, became `--spawn-opts=[object Object]`) and adds
   * `--allowed-ips=0.0.0.0 --allowed-origins=*`, which make chromedriver listen on every interface.
   */
  driverPort?: number;
  /**
   * Chromium's profile folder, inside the session's own scratch folder. Without one,
   * chromedriver makes a `scoped_dir` in the system temp folder and Chromium a folder for its
   * singleton socket, and both stay behind once the session ends: two more per check run.
   */
  profileDir?: string;
}

/**
 * Chromium's preferences: no leaked-password check (the dialog it opens after a sign-in with a
 * well-known password would cover the page). webdriverio set this itself when it started chromedriver.
 */
export const CHROMIUM_PREFS = { "profile.password_manager_leak_detection": false };

export function remoteOptions(launch: EngineLaunch, shape: SessionShape, local: LocalSession = {}): RemoteOptions {
  if ("webdriverUrl" in launch) {
    const url = new URL(launch.webdriverUrl);
    const capabilities: Record<string, unknown> = {};
    if (launch.browserName) capabilities.browserName = launch.browserName;
    // A containerized engine_a is Chromium too, with the same switches (its binary is the image's).
    if (launch.browserName === "chrome") capabilities["goog:chromeOptions"] = { args: chromiumArgs(shape) };
    return {
      protocol: url.protocol === "https:" ? "https" : "http",
      hostname: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
      path: url.pathname || "/",
      capabilities,
    };
  }
  switch (launch.engine) {
    case "engine_a":
      // obs runs chromedriver on driverPort (browser-session.ts), bound to loopback.
      return {
        protocol: "http",
        hostname: "127.0.0.1",
        port: local.driverPort,
        path: "/",
        capabilities: {
          browserName: "chrome",
          "goog:chromeOptions": {
            binary: launch.browser,
            args: local.profileDir
              ? [...chromiumArgs(shape), `--user-data-dir=${local.profileDir}`]
              : chromiumArgs(shape),
            prefs: CHROMIUM_PREFS,
          },
        },
      };
    case "engine_b": {
      const args = shape.headed ? [] : ["-headless"];
      if (shape.viewport) args.push(`--width=${shape.viewport.width}`, `--height=${shape.viewport.height}`);
      return {
        capabilities: {
          browserName: "firefox",
          "moz:firefoxOptions": { binary: launch.browser, args },
          // geckodriver's npm wrapper binds to 0.0.0.0 unless given a host.
          "wdio:geckodriverOptions": { binary: launch.driver, host: "127.0.0.1" },
        },
      };
    }
    default:
      // engine_c: obs runs WebKitWebDriver on driverPort; MiniBrowser needs --automation to accept it.
      return {
        protocol: "http",
        hostname: "127.0.0.1",
        port: local.driverPort,
        path: "/",
        capabilities: { "webkitgtk:browserOptions": { binary: launch.browser, args: ["--automation"] } },
      };
  }
}
