import type { CommandModule } from "yargs";
import { emitSuccess } from "../render/output.js";
import { SINCE_HELP } from "./flag-help.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** `obs services`: the services observed in the window. */
export function servicesCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "services",
    describe: "Services observed in the window",
    builder: (argv) => routeFlags(argv, "listServices", { lookback: SINCE_HELP }),
    run: async (flags, json) => {
      const lookback = since(String(flags.since));
      const body = await (await clientFor(flags)).listServices(flagRequest("listServices", flags));
      const { renderTable } = await import("../render/table.js");
      const human = body.data.length
        ? renderTable(
            ["SERVICE", "LAST SEEN"],
            body.data.map((s) => [s.name, s.lastSeenAt]),
          )
        : `no services in the last ${lookback}`;
      return emitSuccess(json, "services", body.data, human, body.meta);
    },
  });
}
