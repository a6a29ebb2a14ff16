/**
 * Opening a URL in the system's browser, for `obs open`: which program does it on this platform
 * (a pure choice, so it is tested without a desktop), and running it. The program gets the URL
 * as one argument of an argument array, never inside a shell string. Where no browser can be
 * shown (no display on Linux, a CI run) nothing is started: the URL printed is the answer.
 */
import { spawn } from "node:child_process";

/** A program to run and its arguments. */
export interface OpenerCommand {
  command: string;
  args: string[];
  /** Windows' cmd parses its own command line: the arguments are passed as written. */
  verbatim?: boolean;
}

/** Why no browser is opened, when none is. */
export type NoBrowser = "asked to print" | "running in CI" | "no display";

/**
 * The environment variable naming the program `obs open` runs instead of the platform's (it
 * gets the URL as its only argument): for tests, and for people who want a given browser.
 */
export const OPENER_ENV = "OBS_BROWSER_OPENER";

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** The program that opens `url` here, or why none should run. */
export function openerFor(
  url: string,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  print = false,
): OpenerCommand | { none: NoBrowser } {
  if (print) return { none: "asked to print" };
  if (isSet(env.CI)) return { none: "running in CI" };
  const desktop = platform === "darwin" || platform === "win32" || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  if (!desktop) return { none: "no display" };
  const override = env[OPENER_ENV];
  if (override) return { command: override, args: [url] };
  if (platform === "darwin") return { command: "open", args: [url] };
  // `start` takes its first quoted argument as a window title, hence the empty one; `&` would
  // end cmd's command, so it is escaped (the UI's links carry at most one parameter, but still).
  if (platform === "win32")
    return { command: "cmd", args: ["/c", "start", '""', url.replace(/&/g, "^&")], verbatim: true };
  return { command: "xdg-open", args: [url] };
}

/** How long the opener may take to fail before it is taken to have worked (a browser may stay attached). */
const SETTLE_MS = 2_000;

/**
 * Runs the opener detached. Resolves null once it exited 0 or is still running after a moment
 * (some openers stay attached to the browser they start), or the reason it failed: missing, or
 * exited with a failure.
 */
export function runOpener(opener: OpenerCommand): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(opener.command, opener.args, {
      stdio: "ignore",
      detached: true,
      windowsVerbatimArguments: opener.verbatim === true,
      // cmd would otherwise flash a console window of its own.
      windowsHide: true,
    });
    const timer = setTimeout(() => {
      child.unref();
      resolve(null);
    }, SETTLE_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve(`${opener.command} could not run (${error.message})`);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? null : `${opener.command} failed (${signal ?? `exit ${code}`})`);
    });
  });
}
