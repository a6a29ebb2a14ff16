/**
 * What every query command shares: its yargs module (target flags, the action run under
 * runAction so failures become the error output and exit code), the client for the collector
 * the flags name, and the table of one page of records. The client and the renderers load only
 * when a command runs.
 */
import type { Argv, CommandModule } from "yargs";
import type { PageMeta } from "../../shared/api-records.js";
import type { ObsRequestOf } from "../../shared/query-messages.js";
import type { ObsClient } from "../api/obs-client.js";
import { attributeRequest, checkLimit, since, target, targetFlags } from "./query-support.js";
import { flagRequest } from "./route-flags.js";
import { runAction } from "./run-action.js";

export type SetExit = (code: number) => void;
export type Flags = Record<string, unknown>;

/** One table column: its header and how a record shows in it. */
export type Column<R> = readonly [header: string, cell: (record: R) => unknown];

export interface QueryCommandSpec {
  /** The yargs command: its name, then its positionals (`trace <traceId>`). */
  command: string;
  describe: string;
  /** The command's own flags and positionals; the target flags and --json are added. */
  builder?: (argv: Argv) => Argv;
  /** Runs the command and writes its output; returns the exit code. */
  run: (flags: Flags, json: boolean) => Promise<number>;
  /** Its human output holds no table (`status`, `open`): text widths are not loaded for it. */
  noTables?: true;
}

/** The command's name as the output envelope and the error messages give it. */
export function commandName(spec: { command: string }): string {
  return spec.command.split(" ")[0] as string;
}

export function queryCommand(setExit: SetExit, spec: QueryCommandSpec): CommandModule {
  const name = commandName(spec);
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (argv: Argv) => (spec.builder ? spec.builder(targetFlags(argv)) : targetFlags(argv)),
    handler: async (flags: Flags) => {
      const json = Boolean(flags.json);
      // Tables of telemetry text: their columns measured as a terminal shows them.
      if (!json && !spec.noTables) await (await import("../render/table.js")).loadTextWidth();
      setExit(await runAction(json, name, () => spec.run(flags, json)));
    },
  };
}

/** The routes that page records, and their requests. */
type RecordSearch = "searchSpans" | "searchLogs" | "traceLogs" | "spanLogs";

/**
 * The request of a paged record search: --since and --limit checked first (exit 2), then the
 * attribute filters and the route's flags.
 */
export function searchRequest<M extends RecordSearch>(method: M, flags: Flags): Partial<ObsRequestOf<M>> {
  // A trace's or span's logs have no default lookback (their id bounds them).
  if (flags.since !== undefined) since(String(flags.since));
  checkLimit(flags);
  return { ...attributeRequest(flags.filters), ...flagRequest(method, flags) };
}

/** The client of the collector the flags name (or discovery finds). */
export async function clientFor(flags: Flags): Promise<ObsClient> {
  const baseUrl = await target(flags);
  const { ObsClient } = await import("../api/obs-client.js");
  return new ObsClient(baseUrl);
}

/**
 * One page of records as a table, with the line that says how many are shown and the
 * command for the next page; `empty` when the page has none.
 */
export async function pageTable<R>(
  columns: readonly Column<R>[],
  page: { data: R[]; meta: PageMeta },
  empty: string,
  args: readonly string[],
): Promise<string> {
  if (page.data.length === 0) return empty;
  const { renderTable } = await import("../render/table.js");
  const { pageLine } = await import("../render/page-hint.js");
  const table = renderTable(
    columns.map(([header]) => header),
    page.data.map((record) => columns.map(([, cell]) => cell(record))),
  );
  return `${table}\n${pageLine(page.meta, args)}`;
}
