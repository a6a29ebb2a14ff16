import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import {
  ensureStateDir,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  privateDirProblem,
  runDir,
  tempSocketDir,
} from "../../shared/state-dir.js";

/** Unix socket paths are limited to about 108 bytes; longer state folders use the temp folder. */
const MAX_SOCKET_PATH = 100;

/** The control socket folder refused: another user could answer in the collector's place. */
export class UnsafeSocketDirError extends Error {
  override name = "UnsafeSocketDirError";
}

export function registryPath(instanceId: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(runDir(env), `${instanceId}.json`);
}

/** Socket names are `<instanceId>.sock`: 32 hex digits and the suffix. */
const SOCKET_NAME_BYTES = 32 + ".sock".length;

/** Whether a socket in `dir` has a path short enough to bind (a longer one would be cut). */
function fitsSocketPath(dir: string): boolean {
  return Buffer.byteLength(dir) + 1 + SOCKET_NAME_BYTES <= MAX_SOCKET_PATH;
}

/**
 * The folder control sockets go in: the registry folder, or `obs-<uid>` in the temp folder.
 * Refuses (UnsafeSocketDirError) when neither makes a path short enough: the kernel would bind
 * the path cut short, to a socket outside either folder, that nobody could find.
 */
export function socketDirFor(env: NodeJS.ProcessEnv = process.env): string {
  const preferred = runDir(env);
  if (fitsSocketPath(preferred)) return preferred;
  const fallback = tempSocketDir();
  if (fitsSocketPath(fallback)) return fallback;
  throw new UnsafeSocketDirError(
    `refusing the control socket folder ${fallback}: a control socket there, as in ${preferred}, would have a path longer than the ${MAX_SOCKET_PATH} bytes a Unix socket's may have; use a shorter OBS_STATE_DIR or TMPDIR`,
  );
}

export function socketPathFor(instanceId: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(socketDirFor(env), `${instanceId}.sock`);
}

/**
 * Makes the folder that will hold the control socket and checks that only this user can use
 * it. Under the state folder it is obs's own and made owner-only; in the shared temp folder
 * (long state paths) it is created here with mode 0700, and a folder that is already there is
 * accepted only when it is a real folder, this user's, and 0700: otherwise another local user
 * made it and could swap the socket.
 */
export function prepareSocketDir(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  if (dir === runDir(env)) {
    ensureStateDir(env);
  } else {
    try {
      mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const problem = privateDirProblem(dir);
  if (problem) {
    throw new UnsafeSocketDirError(
      `refusing the control socket folder ${dir}: it ${problem}, so another local user could answer in this collector's place. Remove that folder (if it is yours: chmod 700 ${dir}) and start again, or use a shorter OBS_STATE_DIR.`,
    );
  }
}

/** Writes the registry entry atomically (write, then rename), so readers never see half a file. */
export function writeRegistry(entry: RegistryEntry, env: NodeJS.ProcessEnv = process.env): string {
  const path = registryPath(entry.instanceId, env);
  ensureStateDir(env);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
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
