import type { CommandModule } from "yargs";
import type { SpanRecord } from "../../shared/api-records.js";
import { formatDurationNs } from "../render/duration-text.js";
import { emitSuccess } from "../render/output.js";
import { CURSOR_HELP, PAGE_LIMIT_HELP, SINCE_HELP } from "./flag-help.js";
import { type Column, clientFor, pageTable, queryCommand, type SetExit, searchRequest } from "./query-command.js";
import { filtersPositional } from "./query-support.js";
import { routeFlags } from "./route-flags.js";

const spanColumns: Column<SpanRecord>[] = [
  ["SPAN ID", (s) => s.spanId],
  ["TRACE ID", (s) => s.traceId],
  ["START", (s) => s.startTime],
  ["DURATION", (s) => formatDurationNs(s.durationNs)],
  ["STATUS", (s) => s.status.code],
  ["SERVICE", (s) => s.serviceName],
  ["OPERATION", (s) => s.operation],
  // Last, because it is free text of any length: why the span failed.
  ["MESSAGE", (s) => s.status.message],
];

/** `obs spans`: span search, newest first. */
export function spansCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "spans [filters..]",
    describe: "Span search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    builder: (argv) =>
      routeFlags(filtersPositional(argv, "attr.KEY=VALUE, attrContains.KEY=TEXT"), "searchSpans", {
        lookback: SINCE_HELP,
        limit: PAGE_LIMIT_HELP,
        cursor: CURSOR_HELP,
        service: "Only spans of this service.name",
        traceId: "Only spans of this trace (32 hex characters)",
        operation: "Span name",
        parentOperation: "Name of the span's parent",
        status: "Span status: error, or anything else (ok)",
      }),
    run: async (flags, json) => {
      const request = searchRequest("searchSpans", flags);
      const body = await (await clientFor(flags)).searchSpans(request);
      const human = await pageTable(spanColumns, body, "no spans match", process.argv.slice(2));
      return emitSuccess(json, "spans", body.data, human, body.meta);
    },
  });
}
