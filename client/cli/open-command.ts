/**
 * `obs open [traceId]`: the web UI of the collector this folder uses (found as every query
 * command finds it), or one trace's waterfall there, in the system's browser; the URL is
 * printed either way, and is all that happens where no browser can be shown.
 */
import type { CommandModule } from "yargs";
import { traceUrl, uiUrl } from "../../shared/ui-links.js";
import { emitSuccess } from "../render/output.js";
import { OPENER_ENV } from "./browser-opener.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { hexArgument } from "./query-support.js";

export function openCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "open [traceId]",
    noTables: true,
    describe: "Open the web UI, or one trace's waterfall, in the browser and print its URL",
    builder: (argv) =>
      argv
        .positional("traceId", { type: "string", describe: "32 hex characters: open this trace's waterfall" })
        .option("print", { type: "boolean", default: false, describe: "Print the URL; open no browser" })
        .epilogue(
          `The browser is opened with xdg-open (Linux, when DISPLAY or WAYLAND_DISPLAY is set), open (macOS) or cmd /c start (Windows); ${OPENER_ENV}=PROGRAM runs PROGRAM URL instead. With --print, with CI set, or on Linux without a display, the URL is only printed. A trace is looked up first: exit 4 when the collector does not have it.`,
        ),
    run: async (flags, json) => {
      const traceId = flags.traceId === undefined ? undefined : hexArgument(flags.traceId, 16, "trace id");
      const client = await clientFor(flags);
      // Asking first is what makes a typo or a stopped collector an error here rather than a
      // page that says so: an unknown trace is exit 4, no collector exit 3, as `obs trace` ends.
      if (traceId === undefined) await client.health();
      else await client.getTrace({ traceId, limit: 1 });
      const url = traceId === undefined ? uiUrl(client.baseUrl) : traceUrl(client.baseUrl, traceId);
      const { openerFor, runOpener } = await import("./browser-opener.js");
      const opener = openerFor(url, process.platform, process.env, Boolean(flags.print));
      if (!("none" in opener)) {
        const failure = await runOpener(opener);
        if (failure) process.stderr.write(`obs: no browser opened: ${failure}; open the URL yourself\n`);
      }
      return emitSuccess(json, "open", { url }, url);
    },
  });
}
