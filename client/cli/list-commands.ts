import type { Argv, CommandModule } from "yargs";
import type { LogRecord, Page, SpanRecord } from "../../shared/api-records.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { formatDurationNs } from "../render/duration-text.js";
import { emitSuccess } from "../render/output.js";
import { severityOf } from "../render/trace-waterfall.js";
import { attributeFilters, filterTokens, since, target, targetFlags } from "./query-support.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;
type Flags = Record<string, unknown>;

/** One table column: its header and how a record shows in it. */
type Column<R> = [string, (record: R) => unknown];

/** A query command answered by one GET, shown as a table or as one JSON document. */
interface ListCommand<R> {
  command: string;
  describe: string;
  /** The API path for these arguments. */
  path: (flags: Flags) => string;
  flags: (argv: Argv) => Argv;
  /** Query parameters from the flags, validated; throws LifecycleError (exit 2) on bad ones. */
  query: (flags: Flags) => Record<string, string>;
  columns: Column<R>[];
  empty: string;
}

function hexArgument(value: unknown, bytes: number, what: string): string {
  const text = String(value);
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(text)) {
    throw new LifecycleError("invalid_argument", `"${text}" is not a ${what} (${bytes * 2} hex characters)`);
  }
  return text.toLowerCase();
}

/** Copies the named flags (kebab-case on the command line) into query parameters. */
function pick(flags: Flags, names: Record<string, string>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [flag, param] of Object.entries(names)) {
    if (flags[flag] !== undefined) query[param] = String(flags[flag]);
  }
  return query;
}

function limitOf(flags: Flags): Record<string, string> {
  if (flags.limit === undefined) return {};
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new LifecycleError("invalid_argument", "--limit: use a positive integer");
  return { limit: String(limit) };
}

const pagingFlags = (argv: Argv, lookbackDefault: string) =>
  argv
    .option("since", { type: "string", default: lookbackDefault, describe: "Lookback, at most 24h" })
    .option("limit", { type: "number", describe: "Page size (spans and logs: default 100, capped at 500)" })
    .option("cursor", { type: "string", describe: "Continue from a previous JSON page's next_cursor" });

const logColumns: Column<LogRecord>[] = [
  ["TIME", (l) => l.timestamp],
  ["SEVERITY", severityOf],
  ["SERVICE", (l) => l.serviceName],
  ["TRACE ID", (l) => l.traceId],
  ["BODY", (l) => (typeof l.body === "string" ? l.body : JSON.stringify(l.body))],
];

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

const correlatedLogs = (name: "trace-logs" | "span-logs", idName: "traceId" | "spanId"): ListCommand<LogRecord> => ({
  command: `${name} <${idName}>`,
  describe: `Logs correlated to one ${name === "trace-logs" ? "trace" : "span"}, newest first`,
  path: (flags) =>
    name === "trace-logs"
      ? `/api/traces/${hexArgument(flags.traceId, 16, "trace id")}/logs`
      : `/api/spans/${hexArgument(flags.spanId, 8, "span id")}/logs`,
  flags: (argv) => pagingFlags(argv, "24h"),
  query: (flags) => ({ lookback: since(String(flags.since)), ...limitOf(flags), ...pick(flags, { cursor: "cursor" }) }),
  columns: logColumns,
  empty: "no correlated logs",
});

const COMMANDS: ListCommand<never>[] = [
  {
    command: "spans [filters..]",
    describe: "Span search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    path: () => "/api/spans/search",
    flags: (argv) =>
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
    query: (flags) => ({
      lookback: since(String(flags.since)),
      ...limitOf(flags),
      ...attributeFilters((flags.filters as unknown[]) ?? []),
      ...pick(flags, {
        service: "service",
        traceId: "traceId",
        operation: "operation",
        parentOperation: "parentOperation",
        status: "status",
        cursor: "cursor",
      }),
    }),
    columns: spanColumns as Column<never>[],
    empty: "no spans match",
  },
  {
    command: "logs [filters..]",
    describe: "Log search, newest first; filters look like attr.KEY=VALUE or attrContains.KEY=TEXT",
    path: () => "/api/logs",
    flags: (argv) =>
      pagingFlags(argv, "15m")
        .positional("filters", {
          type: "string",
          array: true,
          describe: "attr.KEY=VALUE, attrContains.KEY=TEXT",
          coerce: filterTokens,
        })
        .option("service", { type: "string", describe: "Only logs of this service.name" })
        .option("severity", {
          type: "string",
          describe: "Substring of the severity text or level name (info, warn, error...)",
        })
        .option("trace-id", { type: "string", describe: "Only logs correlated to this trace" })
        .option("span-id", { type: "string", describe: "Only logs correlated to this span" })
        .option("contains", { type: "string", describe: "Body text; - reads it from stdin" }),
    query: (flags) => ({
      lookback: since(String(flags.since)),
      ...limitOf(flags),
      ...attributeFilters((flags.filters as unknown[]) ?? []),
      ...pick(flags, {
        service: "service",
        severity: "severity",
        traceId: "traceId",
        spanId: "spanId",
        contains: "contains",
        cursor: "cursor",
      }),
    }),
    columns: logColumns as Column<never>[],
    empty: "no logs match",
  },
  correlatedLogs("trace-logs", "traceId") as ListCommand<never>,
  correlatedLogs("span-logs", "spanId") as ListCommand<never>,
];

/** The list-shaped query commands (spans, logs, trace-logs, span-logs). */
export function listCommands(setExit: SetExit): CommandModule[] {
  return COMMANDS.map((spec) => ({
    command: spec.command,
    describe: spec.describe,
    builder: (argv: Argv) => spec.flags(targetFlags(argv)),
    handler: async (flags: Flags) => {
      const name = spec.command.split(" ")[0] as string;
      const json = Boolean(flags.json);
      setExit(
        await runAction(json, name, async () => {
          const path = spec.path(flags);
          // `--contains -` reads the text from stdin. The parser drops a lone "-" and leaves the
          // option empty, so the command line itself is checked.
          let args = process.argv.slice(2);
          if (flags.contains === "-" || (flags.contains === "" && args.includes("-"))) {
            flags.contains = (await readStdin()).trim();
            // The next page's command carries the text itself: stdin will not hold it again.
            args = args.map((arg) => (arg === "-" ? String(flags.contains) : arg));
          }
          const query = spec.query(flags);
          const url = await target(flags);
          const { getJson } = await import("../api/api-client.js");
          const body = await getJson<Page<never>>(url, path, query);
          const { renderTable } = await import("../render/table.js");
          const { pageLine } = await import("../render/page-hint.js");
          const human = body.data.length
            ? `${renderTable(
                spec.columns.map(([header]) => header),
                body.data.map((record) => spec.columns.map(([, cell]) => cell(record))),
              )}\n${pageLine(body.meta, args)}`
            : spec.empty;
          return emitSuccess(json, name, body.data, human, body.meta);
        }),
      );
    },
  }));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
