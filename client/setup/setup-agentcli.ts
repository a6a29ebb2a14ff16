/**
 * `obs setup agentcli`: points the coding agent's native OpenTelemetry settings at a local
 * collector, starting or reusing one, registers obs's MCP server (`obs mcp`, run in this folder)
 * in the same settings, and saves the collector's URL for `obs agentcli`.
 */
import { homedir } from "node:os";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { packagePath } from "../../shared/package-root.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { AGENT_NAME, agentVersion, locateAgent } from "./agent-binary.js";
import { type AgentCollectorRequest, collectorForAgent } from "./collector-for-agent.js";
import { applyMcpServerSettings, type SkippedSetting } from "./mcp-server-settings.js";
import { type McpLaunch, obsMcpLaunch } from "./obs-mcp-command.js";
import { readSavedCollector, saveCollector, savedCollectorPath } from "./saved-collector.js";
import { agentSettingsPath, openSettingsFile, rewriteSettingsFile, type SettingsFile } from "./settings-file.js";
import {
  type AgentProtocol,
  applyTelemetrySettings,
  assertEditable,
  type SettingChange,
  SettingsFileError,
} from "./telemetry-settings.js";

export interface SetupResult {
  agent: { name: string; path: string; version: string };
  settings: {
    path: string;
    created: boolean;
    changed: boolean;
    backupPath: string | null;
    changes: SettingChange[];
    skipped: SkippedSetting[];
  };
  collector: {
    url: string;
    started: boolean;
    reused: boolean;
    pid: number;
    port: number;
    dbPath: string;
  };
  launcher: { savedUrlPath: string; changed: boolean };
  /** For the user, on stderr and in the document: as `obs monitor start --detach` warns. */
  warnings: string[];
}

function collectorSummary(entry: RegistryEntry, started: boolean): SetupResult["collector"] {
  return {
    url: entry.baseUrl,
    started,
    reused: !started,
    pid: entry.pid,
    port: entry.port,
    dbPath: entry.dbPath,
  };
}

/**
 * `protocol`: the OTLP protocol to pin the agent to, in its settings and in the launcher's
 * environment; without it the agent keeps its own default (obs takes either on one port).
 * `cwd`: the project folder `obs mcp` runs in when the agent starts it.
 */
export async function setupAgentcli(
  request: AgentCollectorRequest,
  env: NodeJS.ProcessEnv,
  protocol?: AgentProtocol,
  cwd: string = process.cwd(),
  launch: McpLaunch = obsMcpLaunch(packagePath("bin", "obs.js"), process.execPath, env.PATH),
): Promise<SetupResult> {
  const agentPath = locateAgent(env);
  const version = await agentVersion(agentPath, env);
  const settingsPath = agentSettingsPath(env.HOME || homedir());

  // Check the settings file before starting anything, so a file obs cannot edit changes nothing at all.
  const file = settingsFileError(settingsPath, () => {
    const opened = openSettingsFile(settingsPath);
    assertEditable(opened.text ?? "", settingsPath);
    return opened;
  });

  const { collector, started, warnings } = await collectorForAgent(request, readSavedCollector(env)?.url ?? null, env);
  const written = await settingsFileError(settingsPath, () =>
    editSettings(file, collector.baseUrl, settingsPath, protocol, launch, cwd),
  );
  const launcherChanged = saveCollector(collector.baseUrl, env, protocol);

  return {
    agent: { name: AGENT_NAME, path: agentPath, version },
    settings: {
      path: settingsPath,
      created: written.previous === null,
      changed: written.backupPath !== null || written.previous === null,
      backupPath: written.backupPath,
      changes: written.outcome.changes,
      skipped: written.outcome.skipped,
    },
    collector: collectorSummary(collector, started),
    launcher: { savedUrlPath: savedCollectorPath(env), changed: launcherChanged },
    warnings,
  };
}

/** The telemetry keys and the MCP server set in the file, as one edit made under its lock. */
function editSettings(
  file: SettingsFile,
  collectorUrl: string,
  settingsPath: string,
  protocol: AgentProtocol | undefined,
  launch: McpLaunch,
  cwd: string,
) {
  return rewriteSettingsFile(file, (current) => {
    const telemetry = applyTelemetrySettings(current ?? "", collectorUrl, settingsPath, protocol);
    const mcp = applyMcpServerSettings(telemetry.text, launch, cwd, settingsPath);
    const changes = [...telemetry.changes, ...mcp.changes];
    const text = changes.length > 0 || current === null ? mcp.text : null;
    return { text, outcome: { changes, skipped: mcp.skipped } };
  });
}

/** `work`'s value; a settings file obs cannot edit is a configuration error (exit 2) naming it. */
function settingsFileError<T>(settingsPath: string, work: () => T): T {
  const refused = (error: unknown): never => {
    if (error instanceof SettingsFileError) throw new LifecycleError("invalid_config", error.message, { settingsPath });
    throw error;
  };
  try {
    const value = work();
    return (value instanceof Promise ? value.catch(refused) : value) as T;
  } catch (error) {
    return refused(error);
  }
}
