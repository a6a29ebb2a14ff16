/**
 * The second edit `obs setup agentcli` makes to the agent's JSONC settings: obs's MCP server
 * under `mcpServers.obs` (command, args and the folder it runs in, from which `obs mcp` finds
 * its collector as the query commands do). Only those three keys are set, so anything else the
 * user put in the entry (a timeout, trust, env) stays. Pure: text in, text, changes and what was
 * left alone out.
 */
import type { McpLaunch } from "./obs-mcp-command.js";
import {
  applySettingValues,
  nodeAt,
  repeatedKeyOn,
  repeatedKeyProblem,
  type SettingChange,
  type SettingValue,
} from "./settings-edit.js";

/** The key obs's server is registered under in `mcpServers`. */
export const MCP_SERVER_NAME = "obs";

/** A setting obs would have written but left as the user has it, and why. */
export interface SkippedSetting {
  key: string;
  reason: string;
}

export interface McpServerEdit {
  text: string;
  changes: SettingChange[];
  skipped: SkippedSetting[];
}

export function mcpServerSettings(launch: McpLaunch, cwd: string): [string[], SettingValue][] {
  const entry = ["mcpServers", MCP_SERVER_NAME];
  return [
    [[...entry, "command"], launch.command],
    [[...entry, "args"], launch.args],
    [[...entry, "cwd"], cwd],
  ];
}

/**
 * Registers the server in `text`, which the caller has checked parses as an object. A
 * `mcpServers` (or `mcpServers.obs`) that is not an object, or a key obs sets that appears twice
 * on the way, is the user's to fix: it is reported in `skipped` and the text is returned unchanged, so the telemetry part of the setup still runs.
 */
export function applyMcpServerSettings(text: string, launch: McpLaunch, cwd: string, fileName: string): McpServerEdit {
  const settings = mcpServerSettings(launch, cwd);
  const repeated = repeatedKeyOn(
    text,
    settings.map(([path]) => path),
  );
  if (repeated) {
    const reason = `${repeatedKeyProblem(repeated, fileName)}; obs left it unchanged and did not register its MCP server`;
    return { text, changes: [], skipped: [{ key: `mcpServers.${MCP_SERVER_NAME}`, reason }] };
  }
  for (const path of [["mcpServers"], ["mcpServers", MCP_SERVER_NAME]]) {
    const node = nodeAt(text, path);
    if (node && node.type !== "object") {
      const key = path.join(".");
      return {
        text,
        changes: [],
        skipped: [
          {
            key: `mcpServers.${MCP_SERVER_NAME}`,
            reason: `"${key}" in ${fileName} is a ${node.type}, not an object; obs left it unchanged and did not register its MCP server`,
          },
        ],
      };
    }
  }
  return { ...applySettingValues(text, settings), skipped: [] };
}
