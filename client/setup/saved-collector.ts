import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkStateDir, ensureStateDir, makePrivateDir, PRIVATE_FILE_MODE, stateDir } from "../../shared/state-dir.js";

import type { AgentProtocol } from "./telemetry-settings.js";

/**
 * What `obs setup agentcli` leaves for `obs agentcli`: the collector the agent exports to, and
 * the protocol when setup was asked for one (the launcher then sets OTEL_EXPORTER_OTLP_PROTOCOL).
 */
export interface SavedCollector {
  url: string;
  protocol?: AgentProtocol;
}

export function savedCollectorPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "agentcli", "collector.json");
}

export function readSavedCollector(env: NodeJS.ProcessEnv = process.env): SavedCollector | null {
  checkStateDir(env);
  try {
    const saved = JSON.parse(readFileSync(savedCollectorPath(env), "utf8")) as Partial<SavedCollector>;
    if (typeof saved.url !== "string" || saved.url === "") return null;
    return saved.protocol === "grpc" || saved.protocol === "http"
      ? { url: saved.url, protocol: saved.protocol }
      : { url: saved.url };
  } catch {
    return null;
  }
}

/** Saves the URL (and protocol); returns false when it was already saved, so a second setup writes nothing. */
export function saveCollector(url: string, env: NodeJS.ProcessEnv = process.env, protocol?: AgentProtocol): boolean {
  const saved = readSavedCollector(env);
  if (saved?.url === url && saved.protocol === protocol) return false;
  const path = savedCollectorPath(env);
  ensureStateDir(env);
  makePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(protocol ? { url, protocol } : { url }, null, 2)}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
  renameSync(temporary, path);
  return true;
}
