import type { CommandModule } from "yargs";
import type { SpanRecord } from "../../shared/api-records.js";
import type { SpanSearchRequest } from "../api/query-messages.js";
import { formatDurationNs } from "../render/duration-text.js";
import { emitSuccess } from "../render/output.js";
import { CURSOR_HELP, PAGE_LIMIT_HELP, SINCE_HELP } from "./flag-help.js";
import { type Column, clientFor, type Flags, pageTable, queryCommand, type SetExit } from "./query-command.js";
import { attributeRequest, checkLimit, filterTokens, since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

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

function spansRequest(flags: Flags): SpanSearchRequest {
  since(String(flags.since));
  checkLimit(flags);
  return { ...attributeRequest(flags.filters), ...flagRequest("searchSpans", flags) };
}

/** `obs spans`: span search, newest first. */
export function spansCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "spans [filters..]",
    describe: "Span search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    builder: (argv) =>
      routeFlags(
        argv.positional("filters", {
          type: "string",
          array: true,
          describe: "attr.KEY=VALUE, attrContains.KEY=TEXT",
          coerce: filterTokens,
        }),
        "searchSpans",
        {
          lookback: SINCE_HELP,
          limit: PAGE_LIMIT_HELP,
          cursor: CURSOR_HELP,
          service: "Only spans of this service.name",
          traceId: "Only spans of this trace (32 hex characters)",
          operation: "Span name",
          parentOperation: "Name of the span's parent",
          status: "Span status: error, or anything else (ok)",
        },
      ),
    run: async (flags, json) => {
      const request = spansRequest(flags);
      const body = await (await clientFor(flags)).searchSpans(request);
      const human = await pageTable(spanColumns, body, "no spans match", process.argv.slice(2));
      return emitSuccess(json, "spans", body.data, human, body.meta);
    },
  });
}
