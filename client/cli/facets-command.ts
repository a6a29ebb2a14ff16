import type { CommandModule } from "yargs";
import type { FacetsRequest } from "../../shared/query-messages.js";
import { emitSuccess } from "../render/output.js";
import { SINCE_HELP } from "./flag-help.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** `obs facets`: the values of a field, with counts. */
export function facetsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "facets <type> <field>",
    describe:
      "Values of a field with counts: traces (service, operation, status, attribute_keys, attribute_values --key K), logs (service, severity, scope) or metrics (name, service, attribute_keys, attribute_values --key K; counted in series)",
    builder: (argv) =>
      routeFlags(
        argv
          .positional("type", { choices: ["traces", "logs", "metrics"], describe: "Which records" })
          .positional("field", { type: "string", describe: "The field whose values are counted (see above)" }),
        "facets",
        {
          key: "The attribute, for attribute_values",
          lookback: SINCE_HELP,
          service: "Only telemetry of this service.name",
          limit: "Most values to return",
        },
      ),
    run: async (flags, json) => {
      const request: FacetsRequest = {
        type: flags.type as FacetsRequest["type"],
        field: String(flags.field),
        lookback: since(String(flags.since)),
        ...flagRequest("facets", flags),
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
