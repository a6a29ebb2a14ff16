/**
 * The command an MCP client runs to start `obs mcp`, as written into the agent's settings.
 *
 * The agent starts the server itself, later, from its own environment, so the command must name
 * this very obs wherever it lives:
 * - installed globally (`obs` on PATH resolving to this package's bin/obs.js), plain `obs`, so
 *   the entry keeps working after obs or node is upgraded in place;
 * - run from a checkout or through npx (no `obs` on PATH, or one that is another copy), the
 *   node that runs this setup with the absolute path of this package's bin/obs.js: an agent's
 *   PATH may hold no node at all, or another version, and bin/obs.js need not be executable.
 */
import { realpathSync } from "node:fs";
import { findOnPath } from "../executables/find-executable.js";

export interface McpLaunch {
  command: string;
  args: string[];
}

/** The executable name a global install puts on PATH. */
const OBS_EXECUTABLE = "obs";

function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** `obs mcp` when `obs` on `pathVariable` is this obs (`binPath`), else `nodePath binPath mcp`. */
export function obsMcpLaunch(binPath: string, nodePath: string, pathVariable: string | undefined): McpLaunch {
  const onPath = findOnPath(OBS_EXECUTABLE, pathVariable);
  const self = realPath(binPath);
  if (onPath && self !== null && realPath(onPath) === self) return { command: OBS_EXECUTABLE, args: ["mcp"] };
  return { command: nodePath, args: [binPath, "mcp"] };
}
