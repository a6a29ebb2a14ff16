/**
 * `obs show-report [dir]`: serves a run's HTML report (`obs test --reporter html`) from its
 * report directory on 127.0.0.1 and opens it in the system's browser, as `obs open` opens the
 * web UI; the URL is printed either way. It runs until Ctrl+C. The server (express) and the
 * opener are loaded only when the command runs.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CommandModule } from "yargs";
import { ExitCode } from "../../shared/exit-codes.js";
import { OPENER_ENV } from "./browser-opener.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;

/** The report directory `obs test` writes to unless told otherwise. */
const DEFAULT_DIR = ".obs";
/** The page, relative to the report directory (html-report.ts HTML_REPORT; not imported, to keep this file light). */
const PAGE = "report/index.html";

/** Resolves once the user stops the command. */
function untilStopped(): Promise<void> {
  return new Promise((done) => {
    process.once("SIGINT", () => done());
    process.once("SIGTERM", () => done());
  });
}

async function showReport(dirArgument: string | undefined, open: boolean): Promise<number> {
  const dir = resolve(dirArgument ?? DEFAULT_DIR);
  if (!existsSync(join(dir, PAGE))) {
    const { LifecycleError } = await import("../lifecycle/lifecycle-error.js");
    throw new LifecycleError(
      "invalid_argument",
      `no HTML report in ${dir} (${join(dir, PAGE)} is missing): run obs test --reporter html first`,
    );
  }
  const { serveReport } = await import("../checks/report/report-server.js");
  const server = await serveReport(dir);
  const stopped = untilStopped();
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(`obs: serving ${dir} on ${server.origin}; Ctrl+C stops\n`);
  const { openerFor, runOpener } = await import("./browser-opener.js");
  const opener = openerFor(server.url, process.platform, process.env, !open);
  if (!("none" in opener)) {
    const failure = await runOpener(opener);
    if (failure) process.stderr.write(`obs: no browser opened: ${failure}; open the URL yourself\n`);
  }
  await stopped;
  await server.close();
  return ExitCode.ok;
}

export function showReportCommand(setExit: SetExit): CommandModule {
  return {
    command: "show-report [dir]",
    describe: "Serve the HTML report of a run (obs test --reporter html) on 127.0.0.1 and open it; Ctrl+C stops",
    builder: (argv) =>
      argv
        .positional("dir", { type: "string", describe: `The report directory (default ${DEFAULT_DIR})` })
        .option("open", {
          type: "boolean",
          default: true,
          describe: "Open the report in the browser; --no-open only prints its URL",
        })
        .epilogue(
          `Serves DIR's files read-only (GET only, nothing outside DIR) on 127.0.0.1 at a free port, prints http://127.0.0.1:PORT/${PAGE} and opens it with xdg-open (Linux, when DISPLAY or WAYLAND_DISPLAY is set), open (macOS) or cmd /c start (Windows); ${OPENER_ENV}=PROGRAM runs PROGRAM URL instead. With --no-open, with CI set, or on Linux without a display, the URL is only printed. Exit 2 when DIR has no ${PAGE}.`,
        ),
    handler: async (flags) => {
      setExit(
        await runAction(false, "show-report", () => showReport(flags.dir as string | undefined, flags.open as boolean)),
      );
    },
  };
}
