import type { CommandModule } from "yargs";
import type { PageMeta } from "../../shared/api-records.js";
import type { FacetsRequest } from "../../shared/query-messages.js";
import { FACET_FIELDS, QUERY_ROUTES } from "../../shared/query-routes.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { SINCE_HELP } from "./flag-help.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** The most values one answer holds: the route's cap on --limit. */
const FACET_LIMIT_CAP = Number(QUERY_ROUTES.facets.params.limit.cap);

/**
 * The field and --key, checked before any request (exit 2 with no collector running too):
 * the field must be one of the type's, attribute_values needs the attribute's key, and any
 * other field has no use for one (the collector would ignore it, and answer as if none was
 * given).
 */
function checkFacetField(type: FacetsRequest["type"], field: string, key: unknown): void {
  const fields: readonly string[] = FACET_FIELDS[type];
  if (!fields.includes(field)) {
    throw new ArgumentError(`field "${field}" of ${type}: use one of ${fields.join(", ")}`);
  }
  if (field === "attribute_values" && (key === undefined || String(key) === "")) {
    throw new ArgumentError("attribute_values needs --key ATTRIBUTE: the attribute whose values to count");
  }
  if (field !== "attribute_values" && key !== undefined) {
    throw new ArgumentError(`--key applies to attribute_values only, not to ${field}`);
  }
}

/**
 * The line under the values: how many, and when --limit (or the route's cap) cut the list,
 * as the JSON's `truncated` says, how to see the rest. Facets have no next page.
 */
export function facetsLine(meta: PageMeta): string {
  if (!meta.truncated) return `${meta.returned} shown`;
  return meta.limit >= FACET_LIMIT_CAP
    ? `${meta.returned} shown, the most one answer holds; narrow with --service or --since for the rest`
    : `${meta.returned} shown; more values: raise --limit (at most ${FACET_LIMIT_CAP})`;
}

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
          key: "The attribute whose values to count: required by attribute_values, refused by other fields",
          lookback: SINCE_HELP,
          service: "Only telemetry of this service.name",
          limit: "Most values to return",
        },
      ),
    run: async (flags, json) => {
      checkFacetField(flags.type as FacetsRequest["type"], String(flags.field), flags.key);
      const request: FacetsRequest = {
        type: flags.type as FacetsRequest["type"],
        field: String(flags.field),
        lookback: since(String(flags.since)),
        ...flagRequest("facets", flags),
      };
      const body = await (await clientFor(flags)).facets(request);
      const { renderTable } = await import("../render/table.js");
      const human = body.data.length
        ? `${renderTable(
            ["VALUE", "COUNT"],
            body.data.map((f) => [f.value, f.count]),
          )}\n${facetsLine(body.meta)}`
        : "no values";
      return emitSuccess(json, "facets", body.data, human, body.meta);
    },
  });
}
