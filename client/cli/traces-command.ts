import type { CommandModule } from "yargs";
import type { TraceSummary } from "../../shared/api-records.js";
import type { TracesRequest } from "../api/query-messages.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { type Column, clientFor, type Flags, pageTable, queryCommand, type SetExit } from "./query-command.js";
import { attributeRequest, filterTokens, since } from "./query-support.js";

/** The trace list's columns; the root is named by service and operation once it has arrived. */
async function traceColumns(): Promise<Column<TraceSummary>[]> {
  const { formatDuration } = await import("../render/duration-text.js");
  return [
    ["TRACE ID", (t) => t.traceId],
    ["START", (t) => t.startTime],
    ["DURATION", (t) => formatDuration(t.durationMs)],
    ["SPANS", (t) => t.spanCount],
    ["STATUS", (t) => t.status],
    ["ROOT", (t) => (t.rootOperation ? `${t.rootServiceName}: ${t.rootOperation}` : "(root not arrived)")],
  ];
}

/** The request the flags ask for, checked: bad values end the command with exit 2. */
function tracesRequest(flags: Flags): TracesRequest {
  const request: TracesRequest = { lookback: since(String(flags.since)), ...attributeRequest(flags.filters) };
  if (flags.service !== undefined) request.service = String(flags.service);
  if (flags.status !== undefined) request.status = flags.status as TracesRequest["status"];
  if (flags.operation !== undefined) request.operation = String(flags.operation);
  if (flags.cursor !== undefined) request.cursor = String(flags.cursor);
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new LifecycleError("invalid_argument", "--limit: use a positive integer");
  request.limit = limit;
  if (flags.durationMin !== undefined) {
    const min = Number(flags.durationMin);
    if (!Number.isFinite(min) || min < 0)
      throw new LifecycleError("invalid_argument", "--duration-min: use milliseconds, 0 or more");
    request.durationMin = min;
  }
  return request;
}

/** `obs traces`: trace summaries, newest first. */
export function tracesCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "traces [filters..]",
    describe: "Trace summaries, newest first; filters look like attr.KEY=VALUE",
    builder: (argv) =>
      argv
        .positional("filters", {
          type: "string",
          array: true,
          describe: "attr.KEY=VALUE exact attribute filters",
          coerce: filterTokens,
        })
        .option("service", { type: "string", describe: "Only traces with a span of this service.name" })
        .option("status", {
          choices: ["ok", "error"],
          describe: "Only traces with (error) or without (ok) error spans",
        })
        .option("operation", { type: "string", describe: "Root operation" })
        .option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" })
        .option("duration-min", { type: "number", describe: "Only traces lasting at least this many ms" })
        .option("limit", { type: "number", default: 20, describe: "Page size, capped at 100" })
        .option("cursor", { type: "string", describe: "Continue from a previous JSON page's next_cursor" }),
    run: async (flags, json) => {
      const request = tracesRequest(flags);
      const body = await (await clientFor(flags)).listTraces(request);
      const empty = `no traces in the last ${request.lookback}`;
      const human = await pageTable(await traceColumns(), body, empty, process.argv.slice(2));
      return emitSuccess(json, "traces", body.data, human, body.meta);
    },
  });
}
