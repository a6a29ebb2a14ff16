/**
 * Which browser each engine name means and where its binaries are. engine_a is Chromium with
 * chromedriver from the system's packages, so nothing is ever downloaded.
 */

import { findOnPath, isExecutableFile } from "../../executables/find-executable.js";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import type { Engine } from "../config/config-model.js";

export interface ChromiumBinaries {
  browser: string;
  driver: string;
}

/** Debian's real binary first: /usr/bin/chromium is a shell wrapper that adds start-up work and noise. */
const CHROMIUM_CANDIDATES = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"];
const DRIVER_CANDIDATES = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"];

/** Chromium and chromedriver: OBS_CHROMIUM_PATH / OBS_CHROMEDRIVER_PATH when set, else the usual paths, then PATH. */
export function locateChromium(env: NodeJS.ProcessEnv): ChromiumBinaries {
  // A path given in the environment is the only one tried, so a wrong one is reported, not bypassed.
  const browserCandidates = env.OBS_CHROMIUM_PATH
    ? [env.OBS_CHROMIUM_PATH]
    : [...CHROMIUM_CANDIDATES, findOnPath("chromium", env.PATH) ?? undefined];
  const driverCandidates = env.OBS_CHROMEDRIVER_PATH
    ? [env.OBS_CHROMEDRIVER_PATH]
    : [...DRIVER_CANDIDATES, findOnPath("chromedriver", env.PATH) ?? undefined];
  const browser = browserCandidates.find(isExecutableFile);
  const driver = driverCandidates.find(isExecutableFile);
  const missing = [browser ? null : "chromium", driver ? null : "chromium-driver"].filter(Boolean);
  if (missing.length > 0 || !browser || !driver) {
    throw new LifecycleError(
      "invalid_argument",
      `engine_a (Chromium) needs ${missing.join(" and ")}: install with \`apt-get install chromium chromium-driver\` (Debian/Ubuntu), or point OBS_CHROMIUM_PATH and OBS_CHROMEDRIVER_PATH at them`,
      { missing },
    );
  }
  return { browser, driver };
}

/** Engines other than engine_a arrive in a later release; asking for one is a clear usage error. */
export function requireSupportedEngine(engine: Engine, containerized: boolean): void {
  if (containerized) {
    throw new LifecycleError(
      "invalid_argument",
      "--containerized is not supported in this release: run the browser locally (drop --containerized)",
    );
  }
  if (engine !== "engine_a") {
    throw new LifecycleError(
      "invalid_argument",
      `${engine} is not yet supported in this release; use --browser engine_a (Chromium)`,
    );
  }
}
