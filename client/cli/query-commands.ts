import type { CommandModule } from "yargs";
import type { Page, ServiceRecord, TraceSummary } from "../../shared/api-records.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import type { TraceView } from "../render/trace-waterfall.js";
import { attributeFilters, filterTokens, since, target, targetFlags } from "./query-support.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;

/** The width the waterfall's bars scale to: the terminal's, or COLUMNS, or 100 off a terminal. */
function terminalColumns(): number {
  return process.stdout.columns || Number(process.env.COLUMNS) || 100;
}

export function queryCommands(setExit: SetExit): CommandModule[] {
  return [
    {
      command: "services",
      describe: "Services observed in the window",
      builder: (argv) =>
        targetFlags(argv).option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" }),
      handler: async (flags) => {
        const json = Boolean(flags.json);
        setExit(
          await runAction(json, "services", async () => {
            const lookback = since(String(flags.since));
            const url = await target(flags);
            const { getJson } = await import("../api/api-client.js");
            const body = await getJson<Page<ServiceRecord>>(url, "/api/services", { lookback });
            const { renderTable } = await import("../render/table.js");
            const human = body.data.length
              ? renderTable(
                  ["SERVICE", "LAST SEEN"],
                  body.data.map((s) => [s.name, s.lastSeenAt]),
                )
              : `no services in the last ${lookback}`;
            return emitSuccess(json, "services", body.data, human, body.meta);
          }),
        );
      },
    },
    {
      command: "traces [filters..]",
      describe: "Trace summaries, newest first; filters look like attr.KEY=VALUE",
      builder: (argv) =>
        targetFlags(argv)
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
      handler: async (flags) => {
        const json = Boolean(flags.json);
        setExit(
          await runAction(json, "traces", async () => {
            const query: Record<string, string> = {
              lookback: since(String(flags.since)),
              ...attributeFilters((flags.filters as unknown[]) ?? []),
            };
            for (const name of ["service", "status", "operation", "cursor"] as const) {
              if (flags[name] !== undefined) query[name] = String(flags[name]);
            }
            const limit = Number(flags.limit);
            if (!Number.isInteger(limit) || limit < 1)
              throw new LifecycleError("invalid_argument", "--limit: use a positive integer");
            query.limit = String(limit);
            if (flags.durationMin !== undefined) {
              const min = Number(flags.durationMin);
              if (!Number.isFinite(min) || min < 0)
                throw new LifecycleError("invalid_argument", "--duration-min: use milliseconds, 0 or more");
              query.durationMin = String(min);
            }
            const url = await target(flags);
            const { getJson } = await import("../api/api-client.js");
            const body = await getJson<Page<TraceSummary>>(url, "/api/traces", query);
            const { renderTable } = await import("../render/table.js");
            const { formatDuration } = await import("../render/duration-text.js");
            const { pageLine } = await import("../render/page-hint.js");
            const human = body.data.length
              ? `${renderTable(
                  ["TRACE ID", "START", "DURATION", "SPANS", "STATUS", "ROOT"],
                  body.data.map((t) => [
                    t.traceId,
                    t.startTime,
                    formatDuration(t.durationMs),
                    t.spanCount,
                    t.status,
                    t.rootOperation ? `${t.rootServiceName}: ${t.rootOperation}` : "(root not arrived)",
                  ]),
                )}\n${pageLine(body.meta, process.argv.slice(2))}`
              : `no traces in the last ${query.lookback}`;
            return emitSuccess(json, "traces", body.data, human, body.meta);
          }),
        );
      },
    },
    {
      command: "trace <traceId>",
      describe: "One trace as a waterfall: each span's start offset, duration and bar, in tree order",
      builder: (argv) =>
        targetFlags(argv).positional("traceId", { type: "string", describe: "32 hex characters" }).option("include", {
          type: "string",
          describe: "Add detail: spans, logs, attributes (comma-separated); logs are printed under the waterfall too",
        }),
      handler: async (flags) => {
        const json = Boolean(flags.json);
        setExit(
          await runAction(json, "trace", async () => {
            const traceId = String(flags.traceId);
            if (!/^[0-9a-fA-F]{32}$/.test(traceId))
              throw new LifecycleError("invalid_argument", `"${traceId}" is not a trace id (32 hex characters)`);
            const url = await target(flags);
            const { getJson } = await import("../api/api-client.js");
            const body = await getJson<{ data: TraceView; meta?: Page<unknown>["meta"] }>(
              url,
              `/api/traces/${traceId}`,
              flags.include ? { include: String(flags.include) } : {},
            );
            const t = body.data;
            const { renderTraceWaterfall } = await import("../render/trace-waterfall.js");
            // A trace answer holds at most 10,000 spans: say so up front, where it is seen, with
            // the request that reads the rest.
            const partial = body.meta?.truncated
              ? `showing the first ${body.meta.returned} of ${t.spanCount} spans; the rest: curl -s '${url}/api/traces/${t.traceId}/spans?cursor=${encodeURIComponent(String(body.meta.nextCursor))}'`
              : null;
            const lines = json ? [] : renderTraceWaterfall(t, { columns: terminalColumns() });
            if (partial && lines.length > 0) lines.splice(1, 0, partial);
            return emitSuccess(json, "trace", t, lines.join("\n"), body.meta ?? null, partial ? [partial] : []);
          }),
        );
      },
    },
  ];
}
