import type { CommandModule } from "yargs";
import type { MetricSummaryRecord } from "../../shared/query-types.js";
import { emitSuccess } from "../render/output.js";
import { CURSOR_HELP, SINCE_HELP } from "./flag-help.js";
import { type Column, clientFor, type Flags, pageTable, queryCommand, type SetExit } from "./query-command.js";
import { checkLimit, filtersPositional, since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** The metric list's columns. */
const metricColumns: Column<MetricSummaryRecord>[] = [
  ["NAME", (m) => m.name],
  // A sum's kind and every identity's temporality: two identities of one name differ in them.
  ["TYPE", (m) => (m.type === "sum" ? (m.monotonic === true ? "counter" : "up-down sum") : m.type)],
  ["TEMPORALITY", (m) => m.temporality ?? "-"],
  ["UNIT", (m) => m.unit || "-"],
  ["SERVICES", (m) => m.services.join(",")],
  ["SERIES", (m) => m.seriesCount],
  ["POINTS", (m) => m.pointCount],
  ["LAST SEEN", (m) => m.lastTime],
];

/** `obs metrics`: the metrics with a point in the window, by name. */
function metricsCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "metrics",
    describe: "Metrics with a point in the window, by name: type, unit, services, series and points",
    builder: (argv) =>
      routeFlags(argv, "listMetrics", {
        service: "Only metrics of this service.name",
        name: "Substring of the metric's name",
        lookback: SINCE_HELP,
        limit: "Page size (default 100, capped at 500)",
        cursor: CURSOR_HELP,
      }),
    run: async (flags, json) => {
      const lookback = since(String(flags.since));
      checkLimit(flags);
      const body = await (await clientFor(flags)).listMetrics(flagRequest("listMetrics", flags));
      const human = await pageTable(metricColumns, body, `no metrics in the last ${lookback}`, process.argv.slice(2));
      return emitSuccess(json, "metrics", body.data, human, body.meta);
    },
  });
}

/** The most groups one answer holds (the route's cap on --limit). */
const MOST_GROUPS = 100;

/** The groups line under the table when --limit, or the route's cap, cut some off. */
export function groupsLine(meta: { returned: number; truncated: boolean; limit: number }): string {
  if (!meta.truncated) return "";
  return meta.limit >= MOST_GROUPS
    ? `\n${meta.returned} groups shown, the most one answer holds; filter (attr.KEY=VALUE, --service) or group by fewer keys for the rest`
    : `\n${meta.returned} groups shown; raise --limit (at most ${MOST_GROUPS}) for more`;
}

async function seriesRun(flags: Flags, json: boolean): Promise<number> {
  const { metricSeriesRequest } = await import("./metric-request.js");
  const request = metricSeriesRequest(flags);
  const body = await (await clientFor(flags)).metricSeries(request);
  const { renderMetricGroups } = await import("../render/metric-groups.js");
  const { blockCharactersShown } = await import("../render/sparkline.js");
  const human = renderMetricGroups(body.data, { ascii: !blockCharactersShown(process.env) }) + groupsLine(body.meta);
  return emitSuccess(json, "metric", body.data, human, body.meta);
}

async function describeRun(flags: Flags, json: boolean): Promise<number> {
  const { describeMetricRequest } = await import("./metric-request.js");
  const request = describeMetricRequest(flags);
  const body = await (await clientFor(flags)).describeMetric(request);
  const { renderMetricDetail } = await import("../render/metric-groups.js");
  return emitSuccess(json, "metric", body.data, renderMetricDetail(body.data));
}

/** `obs metric NAME`: one metric's values over the window, per group; or its attributes (--describe). */
function metricCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "metric <name> [filters..]",
    describe:
      "One metric over the window: per group its latest value and a sparkline (--json: every bucket); --describe lists its attribute keys and values",
    builder: (argv) =>
      routeFlags(
        filtersPositional(
          argv.positional("name", { type: "string", describe: "The metric's name, exactly (see obs metrics)" }),
          "attr.KEY=VALUE exact attribute filters",
        ),
        "metricSeries",
        {
          groupBy: "Group by service or attr.KEY; repeat to group by several (absent: one group)",
          agg: "How points combine. Counters (monotonic sums, and delta up-down sums): rate (default), increase, sum; gauges and cumulative up-down sums: last (default), avg, min, max, sum; histograms and summaries: count, sum, avg, p50, p90, p95 (default), p99",
          step: "Bucket width (30s, 1m, 15m); default chosen from the window and how often the series export",
          lookback: SINCE_HELP,
          service: "Only series of this service.name",
          type: "Where the name has identities of several types (obs metrics lists each): the one of this type",
          limit:
            "Most groups to show, the largest latest value first, or the largest total where the values add up (default 20, capped at 100)",
          describe: {
            own: {
              type: "boolean",
              default: false,
              describe: "Show the metric's identity and its attribute keys and values (to group or filter by)",
            },
          },
        },
      ),
    run: (flags, json) => (flags.describe ? describeRun(flags, json) : seriesRun(flags, json)),
  });
}

/** The metric commands, in the order `obs --help` shows them. */
export function metricsCommands(setExit: SetExit): CommandModule[] {
  return [metricsCommand(setExit), metricCommand(setExit)];
}
