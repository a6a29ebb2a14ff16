import type { Argv, CommandModule } from "yargs";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import type { SpanView } from "../render/span-detail.js";
import { attributeFilters, filterTokens, since, target, targetFlags } from "./query-support.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;
type Flags = Record<string, unknown>;

interface StatsRow {
  group: string | null;
  value: number;
  unit: string;
  count: number;
}

const TRACE_GROUPS = ["service", "operation", "status"];
const LOG_GROUPS = ["service", "severity", "scope"];

function groupBy(value: unknown, fixed: string[]): string {
  const text = String(value);
  if (fixed.includes(text) || /^attr\..+/.test(text)) return text;
  throw new LifecycleError("invalid_argument", `GROUP_BY "${text}": use one of ${fixed.join(", ")} or attr.KEY`);
}

async function fetchJson<T>(flags: Flags, path: string, query: Record<string, string>): Promise<T> {
  const url = await target(flags);
  const { getJson } = await import("../api/api-client.js");
  return getJson<T>(url, path, query);
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

/** `obs span`, `obs trace-stats`, `obs log-stats`, `obs facets`. */
export function aggregateCommands(setExit: SetExit): CommandModule[] {
  const handle = (name: string, action: (flags: Flags, json: boolean) => Promise<number>) => async (flags: Flags) => {
    const json = Boolean(flags.json);
    setExit(await runAction(json, name, () => action(flags, json)));
  };
  return [
    {
      command: "span <spanId>",
      describe: "One span with its trace, parent, attributes and events",
      builder: (argv: Argv) =>
        targetFlags(argv).positional("spanId", { type: "string", describe: "16 hex characters" }),
      handler: handle("span", async (flags, json) => {
        const spanId = String(flags.spanId);
        if (!/^[0-9a-fA-F]{16}$/.test(spanId))
          throw new LifecycleError("invalid_argument", `"${spanId}" is not a span id (16 hex characters)`);
        const body = await fetchJson<{ data: SpanView }>(flags, `/api/spans/${spanId}`, {});
        const s = body.data;
        const { renderSpanDetail } = await import("../render/span-detail.js");
        const human = json ? "" : renderSpanDetail(s).join("\n");
        return emitSuccess(json, "span", s, human);
      }),
    },
    {
      command: "trace-stats <groupBy> <agg> [filters..]",
      describe: "Trace aggregates per group: count, avg_duration, p95_duration (nearest rank) or error_rate",
      builder: (argv: Argv) =>
        targetFlags(argv)
          .positional("groupBy", { type: "string", describe: "service, operation, status or attr.KEY" })
          .positional("agg", { choices: ["count", "avg_duration", "p95_duration", "error_rate"] })
          .positional("filters", {
            type: "string",
            array: true,
            describe: "attr.KEY=VALUE filters",
            coerce: filterTokens,
          })
          .option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" })
          .option("service", { type: "string", describe: "Only traces with a span of this service.name" })
          .option("status", {
            choices: ["ok", "error"],
            describe: "Only traces with (error) or without (ok) error spans",
          })
          .option("operation", { type: "string", describe: "Root operation" })
          .option("duration-min", { type: "number", describe: "Only traces lasting at least this many ms" }),
      handler: handle("trace-stats", async (flags, json) => {
        const query: Record<string, string> = {
          groupBy: groupBy(flags.groupBy, TRACE_GROUPS),
          agg: String(flags.agg),
          lookback: since(String(flags.since)),
          ...attributeFilters((flags.filters as unknown[]) ?? []),
        };
        for (const [flag, param] of [
          ["service", "service"],
          ["status", "status"],
          ["operation", "operation"],
          ["durationMin", "durationMin"],
        ]) {
          if (flags[flag as string] !== undefined) query[param as string] = String(flags[flag as string]);
        }
        const body = await fetchJson<{ data: StatsRow[]; meta: object }>(flags, "/api/traces/stats", query);
        return emitSuccess(
          json,
          "trace-stats",
          body.data,
          await statsTable(body.data, `no traces in the last ${query.lookback}`),
          body.meta,
        );
      }),
    },
    {
      command: "log-stats <groupBy>",
      describe: "Log counts per group",
      builder: (argv: Argv) =>
        targetFlags(argv)
          .positional("groupBy", { type: "string", describe: "service, severity, scope or attr.KEY" })
          .option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" })
          .option("service", { type: "string", describe: "Only logs of this service.name" })
          .option("severity", { type: "string", describe: "Substring of the severity text or level name" }),
      handler: handle("log-stats", async (flags, json) => {
        const query: Record<string, string> = {
          groupBy: groupBy(flags.groupBy, LOG_GROUPS),
          lookback: since(String(flags.since)),
        };
        if (flags.service !== undefined) query.service = String(flags.service);
        if (flags.severity !== undefined) query.severity = String(flags.severity);
        const body = await fetchJson<{ data: StatsRow[]; meta: object }>(flags, "/api/logs/stats", query);
        return emitSuccess(
          json,
          "log-stats",
          body.data,
          await statsTable(body.data, `no logs in the last ${query.lookback}`),
          body.meta,
        );
      }),
    },
    {
      command: "facets <type> <field>",
      describe:
        "Values of a field with counts: traces (service, operation, status, attribute_keys, attribute_values --key K) or logs (service, severity, scope)",
      builder: (argv: Argv) =>
        targetFlags(argv)
          .positional("type", { choices: ["traces", "logs"] })
          .positional("field", { type: "string" })
          .option("key", { type: "string", describe: "The attribute, for attribute_values" })
          .option("since", { type: "string", default: "15m", describe: "Lookback, at most 24h" })
          .option("service", { type: "string", describe: "Only telemetry of this service.name" })
          .option("limit", { type: "number", describe: "Most values to return" }),
      handler: handle("facets", async (flags, json) => {
        const query: Record<string, string> = {
          type: String(flags.type),
          field: String(flags.field),
          lookback: since(String(flags.since)),
        };
        for (const name of ["key", "service", "limit"])
          if (flags[name] !== undefined) query[name] = String(flags[name]);
        const body = await fetchJson<{ data: { value: string; count: number }[]; meta: object }>(
          flags,
          "/api/facets",
          query,
        );
        const { renderTable } = await import("../render/table.js");
        const human = body.data.length
          ? renderTable(
              ["VALUE", "COUNT"],
              body.data.map((f) => [f.value, f.count]),
            )
          : "no values";
        return emitSuccess(json, "facets", body.data, human, body.meta);
      }),
    },
  ];
}
