import type { CommandModule } from "yargs";
import type { LogRecord } from "../../shared/api-records.js";
import { logBodyText } from "../../shared/log-text.js";
import { emitSuccess } from "../render/output.js";
import { severityOf } from "../render/trace-waterfall.js";
import { CURSOR_HELP, PAGE_LIMIT_HELP, SINCE_HELP } from "./flag-help.js";
import {
  type Column,
  clientFor,
  type Flags,
  pageTable,
  queryCommand,
  type SetExit,
  searchRequest,
} from "./query-command.js";
import { filtersPositional, hexArgument } from "./query-support.js";
import { routeFlags } from "./route-flags.js";

const logColumns: Column<LogRecord>[] = [
  ["TIME", (l) => l.timestamp],
  ["SEVERITY", severityOf],
  ["SERVICE", (l) => l.serviceName],
  ["TRACE ID", (l) => l.traceId],
  ["BODY", (l) => logBodyText(l.body)],
];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `--contains -` (or `--contains=-`) reads the text from stdin. The parser drops a lone "-"
 * and leaves the option empty, so the command line itself is checked. Returns the arguments
 * the next page's command repeats: they carry the text itself, in either form, since stdin will
 * not hold it again.
 */
async function containsFromStdin(flags: Flags): Promise<string[]> {
  const args = process.argv.slice(2);
  if (flags.contains !== "-" && !(flags.contains === "" && args.includes("-"))) return args;
  const text = (await readStdin()).trim();
  flags.contains = text;
  return args.map((arg) => (arg === "-" ? text : arg === "--contains=-" ? `--contains=${text}` : arg));
}

/** The paging flags of every log list, as --help shows them. */
const PAGING = { lookback: SINCE_HELP, limit: PAGE_LIMIT_HELP, cursor: CURSOR_HELP };
/** A trace's or span's logs have no lookback unless one is given: the id bounds them. */
const CORRELATED_PAGING = {
  ...PAGING,
  lookback: "Lookback, at most 24h (default: every log of the trace or span, however old)",
};

/** `obs logs`: log search, newest first. */
function logsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "logs [filters..]",
    describe: "Log search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    builder: (argv) =>
      routeFlags(filtersPositional(argv, "attr.KEY=VALUE, attrContains.KEY=TEXT"), "searchLogs", {
        ...PAGING,
        service: "Only logs of this service.name",
        severity: "Substring of the severity text or level name (info, warn, error...)",
        traceId: "Only logs correlated to this trace",
        spanId: "Only logs correlated to this span",
        contains: "Body text; - reads it from stdin",
      }),
    run: async (flags, json) => {
      const args = await containsFromStdin(flags);
      const request = searchRequest("searchLogs", flags);
      const body = await (await clientFor(flags)).searchLogs(request);
      const human = await pageTable(logColumns, body, "no logs match", args);
      return emitSuccess(json, "logs", body.data, human, body.meta);
    },
  });
}

/** `obs trace-logs` and `obs span-logs`: the logs correlated to one trace or span. */
function correlatedLogsCommand(setExit: SetExit, of: "trace" | "span"): CommandModule {
  const idName = of === "trace" ? "traceId" : "spanId";
  const method = of === "trace" ? "traceLogs" : "spanLogs";
  return queryCommand(setExit, {
    command: `${of}-logs <${idName}>`,
    describe: `Logs correlated to one ${of}, newest first`,
    builder: (argv) =>
      routeFlags(
        argv.positional(idName, {
          type: "string",
          describe: of === "trace" ? "32 hex characters" : "16 hex characters",
        }),
        method,
        CORRELATED_PAGING,
      ),
    run: async (flags, json) => {
      const id = hexArgument(flags[idName], of === "trace" ? 16 : 8, `${of} id`);
      const paging = searchRequest(method, flags);
      const client = await clientFor(flags);
      const body =
        of === "trace"
          ? await client.traceLogs({ traceId: id, ...paging })
          : await client.spanLogs({ spanId: id, ...paging });
      const human = await pageTable(logColumns, body, "no correlated logs", process.argv.slice(2));
      return emitSuccess(json, `${of}-logs`, body.data, human, body.meta);
    },
  });
}

/** The commands that list logs, in the order `obs --help` shows them. */
export function logsCommands(setExit: SetExit): CommandModule[] {
  return [logsCommand(setExit), correlatedLogsCommand(setExit, "trace"), correlatedLogsCommand(setExit, "span")];
}
