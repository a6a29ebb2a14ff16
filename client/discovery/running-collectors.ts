import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { processAlive } from "../../shared/process-alive.js";
import { checkedRunDir, privateDirProblem } from "../../shared/state-dir.js";
import { askCollector, ControlError } from "../control/control-client.js";
import { readRegistryFile, removableSocket } from "./registry-files.js";

/** The registry's collectors: those that answered, and those alive that did not answer in time. */
export interface CollectorsOnRecord {
  running: RegistryEntry[];
  /**
   * Entries whose process is alive but whose socket gave no answer in time (a collector stopped
   * with SIGSTOP or Ctrl+Z, or too busy to answer): kept, not trusted. Discovery must not act
   * on another collector in their place (choose-collector.ts).
   */
  unresponsive: RegistryEntry[];
}

/** The collectors running now (those that answered): see collectorsOnRecord. */
export async function runningCollectors(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 500,
): Promise<RegistryEntry[]> {
  return (await collectorsOnRecord(env, timeoutMs)).running;
}

/**
 * The collectors on record in the registry folder. An entry is running only when its socket
 * answers with the same identity; an entry whose collector is gone (its process has ended, or
 * nothing listens at its socket) or whose identity differs is stale and is removed, never
 * trusted. One whose process lives but whose socket gives no answer in time is unresponsive:
 * its files stay, for when it answers again. A socket in a folder other users can reach (a temp
 * folder another user made) is not asked at all: whoever answers there could be anyone. Its
 * entry is dropped; the socket, not ours to remove, is left.
 *
 * The registry folder is checked first as a start checks it (checkedRunDir: a state folder
 * another user could change is refused with StateDirError), and only this user's own plain
 * files in it are read: a link, or a file another user made, is neither trusted nor removed.
 * Of what a stale entry names, only its own socket is removed (removableSocket).
 */
export async function collectorsOnRecord(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 500,
): Promise<CollectorsOnRecord> {
  const dir = checkedRunDir(env);
  if (dir === null) return { running: [], unresponsive: [] };
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^[0-9a-f]{32}\.json$/.test(name));
  } catch {
    return { running: [], unresponsive: [] };
  }
  const unresponsive: RegistryEntry[] = [];
  const checked = await Promise.all(
    names.map(async (name): Promise<RegistryEntry | null> => {
      const path = join(dir, name);
      const file = readRegistryFile(path);
      if (file.kind === "foreign") return null;
      if (file.kind === "unreadable") {
        rmSync(path, { force: true });
        return null;
      }
      const { entry } = file;
      if (privateDirProblem(dirname(entry.socketPath)) !== null) {
        rmSync(path, { force: true });
        return null;
      }
      try {
        const answer = await askCollector(entry.socketPath, { op: "identify" }, timeoutMs);
        if (
          answer.ok &&
          answer.op === "identify" &&
          answer.identity.instanceId === entry.instanceId &&
          answer.identity.pid === entry.pid
        ) {
          return answer.identity;
        }
      } catch (error) {
        const silent = error instanceof ControlError && error.failure === "timeout";
        if (silent && Number.isInteger(entry.pid) && processAlive(entry.pid)) {
          unresponsive.push(entry);
          return null;
        }
      }
      rmSync(path, { force: true });
      if (removableSocket(entry, dir)) rmSync(entry.socketPath, { force: true });
      return null;
    }),
  );
  const byFolder = (a: RegistryEntry, b: RegistryEntry) =>
    a.cwd.localeCompare(b.cwd) || a.instanceId.localeCompare(b.instanceId);
  return {
    running: checked.filter((entry): entry is RegistryEntry => entry !== null).sort(byFolder),
    unresponsive: unresponsive.sort(byFolder),
  };
}
