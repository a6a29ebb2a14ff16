import type { CommandModule } from "yargs";
import type { LogStatsRequest, TraceStatsRequest } from "../../shared/query-messages.js";
import type { StatsAnswerRow as StatsRow } from "../../shared/query-types.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { SINCE_HELP, TRACE_FILTER_HELP } from "./flag-help.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { attributeRequest, filtersPositional, since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

const TRACE_GROUPS = ["service", "operation", "status"];
const LOG_GROUPS = ["service", "severity", "scope"];

function groupBy(value: unknown, fixed: string[]): string {
  const text = String(value);
  if (fixed.includes(text) || /^attr\..+/.test(text)) return text;
  throw new ArgumentError(`GROUP_BY "${text}": use one of ${fixed.join(", ")} or attr.KEY`);
}

async function statsTable(rows: StatsRow[], empty: string): Promise<string> {
  if (rows.length === 0) return empty;
  const { renderTable } = await import("../render/table.js");
  const { formatDuration } = await import("../render/duration-text.js");
  return renderTable(
    ["GROUP", "VALUE", "COUNT"],
    rows.map((row) => [
      row.group ?? "(none)",
      row.unit === "ms" ? formatDuration(row.value) : `${Math.round(row.value * 1000) / 1000} ${row.unit}`,
      row.count,
    ]),
  );
}

/** `obs trace-stats`: trace aggregates per group. */
function traceStatsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "trace-stats <groupBy> <agg> [filters..]",
    describe: "Trace aggregates per group: count, avg_duration, p95_duration (nearest rank) or error_rate",
    builder: (argv) =>
      routeFlags(
        filtersPositional(
          argv
            .positional("groupBy", { type: "string", describe: "service, operation, status or attr.KEY" })
            .positional("agg", {
              choices: ["count", "avg_duration", "p95_duration", "error_rate"],
              describe: "The aggregate per group",
            }),
          "attr.KEY=VALUE filters",
        ),
        "traceStats",
        { lookback: SINCE_HELP, ...TRACE_FILTER_HELP },
      ),
    run: async (flags, json) => {
      const request: TraceStatsRequest = {
        groupBy: groupBy(flags.groupBy, TRACE_GROUPS),
        agg: flags.agg as TraceStatsRequest["agg"],
        lookback: since(String(flags.since)),
        ...attributeRequest(flags.filters),
        ...flagRequest("traceStats", flags),
      };
      const body = await (await clientFor(flags)).traceStats(request);
      const human = await statsTable(body.data, `no traces in the last ${request.lookback}`);
      return emitSuccess(json, "trace-stats", body.data, human, body.meta);
    },
  });
}

/** `obs log-stats`: log counts per group. */
function logStatsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "log-stats <groupBy>",
    describe: "Log counts per group",
    builder: (argv) =>
      routeFlags(
        argv.positional("groupBy", { type: "string", describe: "service, severity, scope or attr.KEY" }),
        "logStats",
        {
          lookback: SINCE_HELP,
          service: "Only logs of this service.name",
          severity: "Substring of the severity text or level name",
        },
      ),
    run: async (flags, json) => {
      const request: LogStatsRequest = {
        groupBy: groupBy(flags.groupBy, LOG_GROUPS),
        lookback: since(String(flags.since)),
        ...flagRequest("logStats", flags),
      };
      const body = await (await clientFor(flags)).logStats(request);
      const human = await statsTable(body.data, `no logs in the last ${request.lookback}`);
      return emitSuccess(json, "log-stats", body.data, human, body.meta);
    },
  });
}

/** The aggregate commands, in the order `obs --help` shows them. */
export function statsCommands(setExit: SetExit): CommandModule[] {
  return [traceStatsCommand(setExit), logStatsCommand(setExit)];
}
