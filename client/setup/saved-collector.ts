import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureStateDir, makePrivateDir, PRIVATE_FILE_MODE, stateDir } from "../../shared/state-dir.js";

/** What `obs setup agentcli` leaves for `obs agentcli`: the collector the agent exports to. */
export interface SavedCollector {
  url: string;
}

export function savedCollectorPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "agentcli", "collector.json");
}

export function readSavedCollector(env: NodeJS.ProcessEnv = process.env): SavedCollector | null {
  try {
    const saved = JSON.parse(readFileSync(savedCollectorPath(env), "utf8")) as Partial<SavedCollector>;
    return typeof saved.url === "string" && saved.url !== "" ? { url: saved.url } : null;
  } catch {
    return null;
  }
}

/** Saves the URL; returns false when it was already saved, so a second setup writes nothing. */
export function saveCollector(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (readSavedCollector(env)?.url === url) return false;
  const path = savedCollectorPath(env);
  ensureStateDir(env);
  makePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ url }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
  return true;
}
