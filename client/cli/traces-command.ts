import type { CommandModule } from "yargs";
import type { TraceSummary } from "../../shared/api-records.js";
import type { TracesRequest } from "../../shared/query-messages.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { CURSOR_HELP, SINCE_HELP, TRACE_FILTER_HELP } from "./flag-help.js";
import { type Column, clientFor, type Flags, pageTable, queryCommand, type SetExit } from "./query-command.js";
import { attributeRequest, filtersPositional, since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** The trace list's columns; the root is named by service and operation once it has arrived. */
async function traceColumns(): Promise<Column<TraceSummary>[]> {
  const { formatDuration } = await import("../render/duration-text.js");
  return [
    ["TRACE ID", (t) => t.traceId],
    ["START", (t) => t.startTime],
    ["DURATION", (t) => formatDuration(t.durationMs)],
    ["SPANS", (t) => t.spanCount],
    ["STATUS", (t) => t.status],
    ["ROOT", rootText],
  ];
}

/** The root by service and operation; a span may be named "", shown as the web UI shows it. */
function rootText(t: TraceSummary): string {
  if (t.rootOperation === null) return "(root not arrived)";
  return `${t.rootServiceName}: ${t.rootOperation === "" ? "(unnamed)" : t.rootOperation}`;
}

/** The request the flags ask for, checked: bad values end the command with exit 2. */
function tracesRequest(flags: Flags): TracesRequest {
  const lookback = since(String(flags.since));
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new ArgumentError("--limit: use a positive integer");
  if (flags.durationMin !== undefined) {
    const min = Number(flags.durationMin);
    if (!Number.isFinite(min) || min < 0) throw new ArgumentError("--duration-min: use milliseconds, 0 or more");
  }
  return { ...attributeRequest(flags.filters), ...flagRequest("listTraces", flags), lookback };
}

/** `obs traces`: trace summaries, newest first. */
export function tracesCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "traces [filters..]",
    describe: "Trace summaries, newest first; filters look like attr.KEY=VALUE",
    builder: (argv) =>
      routeFlags(filtersPositional(argv, "attr.KEY=VALUE exact attribute filters"), "listTraces", {
        service: TRACE_FILTER_HELP.service,
        status: TRACE_FILTER_HELP.status,
        operation: TRACE_FILTER_HELP.operation,
        lookback: SINCE_HELP,
        durationMin: TRACE_FILTER_HELP.durationMin,
        limit: { describe: "Page size, capped at 100", withDefault: true },
        cursor: CURSOR_HELP,
      }),
    run: async (flags, json) => {
      const request = tracesRequest(flags);
      const body = await (await clientFor(flags)).listTraces(request);
      const empty = `no traces in the last ${request.lookback}`;
      const human = await pageTable(await traceColumns(), body, empty, process.argv.slice(2));
      return emitSuccess(json, "traces", body.data, human, body.meta);
    },
  });
}
