import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { runDir } from "../../shared/state-dir.js";

/** Unix socket paths are limited to about 108 bytes; longer state folders use the temp folder. */
const MAX_SOCKET_PATH = 100;

export function registryPath(instanceId: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(runDir(env), `${instanceId}.json`);
}

export function socketPathFor(instanceId: string, env: NodeJS.ProcessEnv = process.env): string {
  const preferred = join(runDir(env), `${instanceId}.sock`);
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH) return preferred;
  return join(tmpdir(), `obs-${process.getuid?.() ?? "user"}`, `${instanceId}.sock`);
}

/** Writes the registry entry atomically (write, then rename), so readers never see half a file. */
export function writeRegistry(entry: RegistryEntry, env: NodeJS.ProcessEnv = process.env): string {
  const path = registryPath(entry.instanceId, env);
  mkdirSync(runDir(env), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return path;
}

export function removeRegistry(
  entry: Pick<RegistryEntry, "instanceId" | "socketPath">,
  env: NodeJS.ProcessEnv = process.env,
): void {
  rmSync(registryPath(entry.instanceId, env), { force: true });
  rmSync(entry.socketPath, { force: true });
}
