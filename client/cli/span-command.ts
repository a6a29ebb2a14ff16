import type { CommandModule } from "yargs";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";

/** `obs span`: one span with its trace, parent, attributes and events. */
export function spanCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "span <spanId>",
    describe: "One span with its trace, parent, attributes and events",
    builder: (argv) => argv.positional("spanId", { type: "string", describe: "16 hex characters" }),
    run: async (flags, json) => {
      const spanId = String(flags.spanId);
      if (!/^[0-9a-fA-F]{16}$/.test(spanId))
        throw new ArgumentError(`"${spanId}" is not a span id (16 hex characters)`);
      const body = await (await clientFor(flags)).getSpan({ spanId });
      const s = body.data;
      const { renderSpanDetail } = await import("../render/span-detail.js");
      const human = json ? "" : renderSpanDetail(s).join("\n");
      return emitSuccess(json, "span", s, human);
    },
  });
}
