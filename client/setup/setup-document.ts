/** The `obs.setup/v1` document (`schemas/setup/setup.json`) and the human summary of a setup. */
import type { ErrorCode } from "../../shared/cli-envelope.js";
import { hideUrlPasswords } from "../../shared/url-passwords.js";
import type { SetupResult } from "./setup-agentcli.js";

export const SETUP_SCHEMA_VERSION = "obs.setup/v1";

export function setupDocument(result: SetupResult, now: Date = new Date()): object {
  return {
    schema_version: SETUP_SCHEMA_VERSION,
    generated_at: now.toISOString(),
    agent: result.agent,
    settings: {
      path: result.settings.path,
      created: result.settings.created,
      changed: result.settings.changed,
      backup_path: result.settings.backupPath,
      // `before` is the user's own value, as found but for a password in a URL (an exporter
      // endpoint with credentials): this document is often read by an agent, and so by a model.
      changes: result.settings.changes.map(({ key, before, after }) => ({
        key,
        before: withoutUrlPasswords(before),
        after,
      })),
      skipped: result.settings.skipped.map(({ key, reason }) => ({ key, reason })),
    },
    collector: {
      url: result.collector.url,
      started: result.collector.started,
      reused: result.collector.reused,
      pid: result.collector.pid,
      port: result.collector.port,
      db_path: result.collector.dbPath,
    },
    launcher: { saved_url_path: result.launcher.savedUrlPath, changed: result.launcher.changed },
    warnings: result.warnings,
  };
}

/** `value` with every password in a URL it holds shown as `***`, nested values included. Pure. */
export function withoutUrlPasswords(value: unknown): unknown {
  if (typeof value === "string") return hideUrlPasswords(value);
  if (Array.isArray(value)) return value.map(withoutUrlPasswords);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutUrlPasswords(inner)]));
  }
  return value;
}

export function setupErrorDocument(
  code: ErrorCode,
  message: string,
  details?: unknown,
  now: Date = new Date(),
): object {
  return {
    schema_version: SETUP_SCHEMA_VERSION,
    generated_at: now.toISOString(),
    error: { code, message, ...(details === undefined ? {} : { details }) },
  };
}

export function setupSummary(result: SetupResult): string {
  const { agent, settings, collector } = result;
  const settingsLine = settings.changed
    ? `${settings.created ? "created" : "updated"} ${settings.path}: ${settings.changes
        .map((change) => `${change.key} = ${JSON.stringify(change.after)}`)
        .join(", ")}${settings.backupPath ? `\n  previous version kept as ${settings.backupPath}` : ""}`
    : `${settings.path}: telemetry already points at ${collector.url}${settings.skipped.length === 0 ? " and obs's MCP server is registered" : ""}, unchanged`;
  const skippedLines = settings.skipped.map((skipped) => `not set ${skipped.key}: ${skipped.reason}`);
  const collectorLine = collector.started
    ? `collector started at ${collector.url} (pid ${collector.pid}, database ${collector.dbPath})`
    : `collector reused at ${collector.url} (pid ${collector.pid})`;
  return [
    `${agent.name} ${agent.version} at ${agent.path}`,
    settingsLine,
    ...skippedLines,
    collectorLine,
    // The launcher's saved collector (and protocol) may change alone: --protocol dropped on a rerun.
    ...(result.launcher.changed ? [`saved for obs agentcli in ${result.launcher.savedUrlPath}`] : []),
    `launch the agent with: obs agentcli [its arguments]`,
  ].join("\n");
}
