import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The obs state folder: `OBS_STATE_DIR` when set (tests use it so they never touch a real
 * home), else the XDG state home convention: `$XDG_STATE_HOME/obs` or `~/.local/state/obs`.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OBS_STATE_DIR) return env.OBS_STATE_DIR;
  const xdg = env.XDG_STATE_HOME;
  const base = xdg?.startsWith("/") ? xdg : join(homedir(), ".local", "state");
  return join(base, "obs");
}

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "monitor", "telemetry.sqlite");
}

export function runDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "monitor", "run");
}
