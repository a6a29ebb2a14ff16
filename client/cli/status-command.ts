import type { CommandModule } from "yargs";
import type { HealthRecord, SignalHistoryRecord } from "../../shared/api-records.js";
import { formatMebibytes } from "../../shared/byte-size.js";
import { endpointLine } from "../../shared/endpoints.js";
import { uiUrl } from "../../shared/ui-links.js";
import { formatDuration } from "../render/duration-text.js";
import { forwardingLines } from "../render/forwarding-lines.js";
import { emitSuccess } from "../render/output.js";
import { safeText } from "../render/table.js";
import { queryCommand, type SetExit } from "./query-command.js";
import { targetWithSource } from "./query-support.js";

const FOUND_BY = { flag: "given by flag", env: "from OBS_MONITOR_URL", discovery: "found by discovery" } as const;

/**
 * A line only when writes are failing now, so a full disk is seen before data goes missing.
 * The error's text may quote what was written (a path, a record's text): escaped.
 */
function writesWarning(health: HealthRecord): string[] {
  const writes = health.database.writes;
  if (!writes || writes.ok) return [];
  return [`  warning   writes failing since ${writes.failingSince}: ${safeText(writes.lastError)}`];
}

const DAY_S = 86_400;

/** How far back: in days from two days on (a week's retention reads `7 d`, not `168 h`). */
function reachText(seconds: number): string {
  return seconds >= 2 * DAY_S ? `${Number((seconds / DAY_S).toPrecision(3))} d` : formatDuration(seconds * 1000);
}

const HISTORY_NAMES = [
  ["spans", "spans", "span"],
  ["logs", "logs", "log record"],
  ["points", "metric points", "point"],
] as const;

/**
 * A line per signal the store holds: how far back it reaches and what a record costs, so a
 * user can see what the size cap keeps. None from a collector that does not report it.
 */
export function historyLines(health: HealthRecord): string[] {
  const history = health.database.history;
  if (history === undefined) return [];
  return HISTORY_NAMES.flatMap(([key, plural, one]) => {
    const signal: SignalHistoryRecord = history[key];
    if (signal.oldest === null || signal.reachSeconds === null) return [];
    const size = signal.bytesPerRecord === null ? "size not measured" : `${signal.bytesPerRecord} B per ${one}`;
    return [`  history   ${plural} back ${reachText(signal.reachSeconds)} (from ${signal.oldest}), ${size}`];
  });
}

/**
 * Human summary of a collector's health: address, web UI, store and what it holds. `ui` is the
 * UI's URL at the address this client reached the collector by (a collector bound to 0.0.0.0
 * reports that address as its own).
 */
export function healthSummary(health: HealthRecord, foundBy: keyof typeof FOUND_BY, ui: string): string {
  const { counts } = health;
  return [
    `ok  obsd ${health.versions.obs}  ${health.baseUrl}  (${FOUND_BY[foundBy]})`,
    `  web UI    ${ui}`,
    `  process   pid ${health.pid}, up ${health.uptimeSeconds} s, started in ${health.cwd}`,
    `  database  ${health.database.path}  ${formatMebibytes(health.database.sizeBytes)}  (keeps ${health.retention.maxAge}, at most ${formatMebibytes(health.retention.maxBytes)})`,
    `  stored    ${counts.traces} traces, ${counts.spans} spans, ${counts.logs} logs, ${counts.points} metric points in ${counts.series} series; latest ${health.latestTelemetryAt ?? "none"}`,
    ...historyLines(health),
    `  services  ${counts.services} services in the last ${counts.servicesLookback}`,
    // A collector older than gRPC support sends no endpoints.
    ...(health.endpoints ?? []).map((endpoint) => `  listens   ${endpointLine(endpoint)}`),
    ...forwardingLines(health.forwarding, "  "),
    ...writesWarning(health),
  ].join("\n");
}

/** `obs status`: the collector's health in one cheap request; --json adds its configuration. */
export function statusCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "status",
    noTables: true,
    describe: "Cheap health of the collector this folder uses; --json adds its effective configuration",
    run: async (flags, json) => {
      const target = await targetWithSource(flags);
      const { ObsClient } = await import("../api/obs-client.js");
      const health = await new ObsClient(target.baseUrl).health();
      const ui = uiUrl(target.baseUrl);
      const data = { ...health, target: { baseUrl: target.baseUrl, source: target.source }, ui };
      return emitSuccess(json, "status", data, healthSummary(health, target.source, ui));
    },
  });
}
