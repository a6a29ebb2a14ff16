import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { privateDirProblem, runDir } from "../../shared/state-dir.js";
import { askCollector } from "../control/control-client.js";

/**
 * The collectors running now, from the registry folder. An entry counts only when its socket
 * answers with the same identity; entries whose collector is gone, whose socket is dead or
 * whose identity differs are stale and are removed, never trusted. A socket in a folder other
 * users can reach (a temp folder another user made) is not asked at all: whoever answers there
 * could be anyone. Its entry is dropped; the socket, not ours to remove, is left.
 */
export async function runningCollectors(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 500,
): Promise<RegistryEntry[]> {
  const dir = runDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^[0-9a-f]{32}\.json$/.test(name));
  } catch {
    return [];
  }
  const checked = await Promise.all(
    names.map(async (name): Promise<RegistryEntry | null> => {
      const path = join(dir, name);
      let entry: RegistryEntry;
      try {
        entry = JSON.parse(readFileSync(path, "utf8")) as RegistryEntry;
      } catch {
        rmSync(path, { force: true });
        return null;
      }
      if (typeof entry.socketPath !== "string" || privateDirProblem(dirname(entry.socketPath)) !== null) {
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
      } catch {
        // no answer: stale
      }
      rmSync(path, { force: true });
      rmSync(entry.socketPath ?? "", { force: true });
      return null;
    }),
  );
  return checked
    .filter((entry): entry is RegistryEntry => entry !== null)
    .sort((a, b) => a.cwd.localeCompare(b.cwd) || a.instanceId.localeCompare(b.instanceId));
}
