import type { CommandModule } from "yargs";
import type { SpanRecord } from "../../shared/api-records.js";
import type { SpanSearchRequest } from "../api/query-messages.js";
import { formatDurationNs } from "../render/duration-text.js";
import { emitSuccess } from "../render/output.js";
import { type Column, clientFor, type Flags, pageTable, queryCommand, type SetExit } from "./query-command.js";
import { attributeRequest, filterTokens, limitOf, pagingFlags, pick, since } from "./query-support.js";

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
  return {
    lookback: since(String(flags.since)),
    ...limitOf(flags),
    ...attributeRequest(flags.filters),
    ...pick(flags, ["service", "traceId", "operation", "parentOperation", "status", "cursor"]),
  } as SpanSearchRequest;
}

/** `obs spans`: span search, newest first. */
export function spansCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "spans [filters..]",
    describe: "Span search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    builder: (argv) =>
      pagingFlags(argv, "15m")
        .positional("filters", {
          type: "string",
          array: true,
          describe: "attr.KEY=VALUE, attrContains.KEY=TEXT",
          coerce: filterTokens,
        })
        .option("service", { type: "string", describe: "Only spans of this service.name" })
        .option("trace-id", { type: "string", describe: "Only spans of this trace (32 hex characters)" })
        .option("operation", { type: "string", describe: "Span name" })
        .option("parent-operation", { type: "string", describe: "Name of the span's parent" })
        .option("status", { choices: ["ok", "error"], describe: "Span status: error, or anything else (ok)" }),
    run: async (flags, json) => {
      const request = spansRequest(flags);
      const body = await (await clientFor(flags)).searchSpans(request);
      const human = await pageTable(spanColumns, body, "no spans match", process.argv.slice(2));
      return emitSuccess(json, "spans", body.data, human, body.meta);
    },
  });
}
