import type { CommandModule } from "yargs";
import type { FacetsRequest } from "../api/query-messages.js";
import { emitSuccess } from "../render/output.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { pick, since } from "./query-support.js";

/** `obs facets`: the values of a field, with counts. */
export function facetsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "facets <type> <field>",
    describe:
      "Values of a field with counts: traces (service, operation, status, attribute_keys, attribute_values --key K) or logs (service, severity, scope)",
    builder: (argv) =>
      argv
        .positional("type", { choices: ["traces", "logs"] })
        .positional("field", { type: "string" })
        .option("key", { type: "string", describe: "The attribute, for attribute_values" })
        .option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" })
        .option("service", { type: "string", describe: "Only telemetry of this service.name" })
        .option("limit", { type: "number", describe: "Most values to return" }),
    run: async (flags, json) => {
      const request: FacetsRequest = {
        type: flags.type as FacetsRequest["type"],
        field: String(flags.field),
        lookback: since(String(flags.since)),
        ...pick(flags, ["key", "service"]),
        ...(flags.limit !== undefined ? { limit: Number(flags.limit) } : {}),
      };
      const body = await (await clientFor(flags)).facets(request);
      const { renderTable } = await import("../render/table.js");
      const human = body.data.length
        ? renderTable(
            ["VALUE", "COUNT"],
            body.data.map((f) => [f.value, f.count]),
          )
        : "no values";
      return emitSuccess(json, "facets", body.data, human, body.meta);
    },
  });
}
