import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { processAlive, startIdentity, startsReadable } from "../../shared/process-alive.js";
import { checkedRunDir, privateDirProblem } from "../../shared/state-dir.js";
import { askCollector, ControlError } from "../control/control-client.js";
import { readRegistryFile, removableSocket } from "./registry-files.js";
import { type SilentEntryFacts, silentEntryFate } from "./silent-entry.js";

/** The registry's collectors: those that answered, and those alive that did not answer in time. */
export interface CollectorsOnRecord {
  running: RegistryEntry[];
  /**
   * Entries whose process is alive but whose socket gave no answer in time (a collector stopped
   * with SIGSTOP or Ctrl+Z, or too busy to answer): kept, not trusted. Discovery must not act
   * on another collector in their place (choose-collector.ts).
   */
  unresponsive: RegistryEntry[];
  /**
   * Of the unresponsive, those whose socket is gone, refuses connections or lies in a folder obs
   * does not ask (a temp cleaner removed `/tmp/obs-<uid>/<id>.sock`, or the folder): their
   * process still runs (silent-entry.ts). obsd makes its socket again within
   * seconds; meanwhile `monitor stop` can stop one through its entry and its HTTP answer
   * (stop-collector.ts).
   */
  withoutSocket: RegistryEntry[];
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
 * answers with the same identity. One whose process still runs but whose socket gives no
 * answer (in time, or at all: the file removed, or in a folder other users can reach, which is
 * not asked: whoever answers there could be anyone) is unresponsive: its files stay, for when
 * it answers again (silentEntryFate says which are kept: never on the wall clock's word). An
 * entry whose collector is gone, or whose socket answers with another identity, is stale and is
 * removed, never trusted.
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
  const none: CollectorsOnRecord = { running: [], unresponsive: [], withoutSocket: [] };
  const dir = checkedRunDir(env);
  if (dir === null) return none;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^[0-9a-f]{32}\.json$/.test(name));
  } catch {
    return none;
  }
  const unresponsive: RegistryEntry[] = [];
  const withoutSocket: RegistryEntry[] = [];
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
      let socket: SilentEntryFacts["socket"] | "answered" = "unasked";
      if (privateDirProblem(dirname(entry.socketPath)) === null) {
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
          // Another collector, or something else, answers there: this entry's is gone.
          socket = "answered";
        } catch (error) {
          const failure = error instanceof ControlError ? error.failure : "malformed";
          socket = failure === "malformed" ? "answered" : failure;
        }
      }
      if (socket !== "answered") {
        const fate = silentEntryFate({
          socket,
          alive: processAlive(entry.pid),
          identity: startIdentity(entry.pid, entry.startTicks),
          startsReadable: startsReadable(),
        });
        if (fate !== "stale") unresponsive.push(entry);
        if (fate === "withoutSocket") withoutSocket.push(entry);
        if (fate !== "stale") return null;
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
    withoutSocket: withoutSocket.sort(byFolder),
  };
}
