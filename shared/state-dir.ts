import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/**
 * Telemetry holds whatever applications log (tokens, passwords in URLs): every folder obs
 * creates is owner-only and every file owner-only read/write, whatever the umask.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

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

/**
 * A project's own store (`--project-store`): under the state folder, in a folder named after
 * the project folder, with a short hash of its full path so two projects with the same name
 * stay apart. The same folder gives the same path, so a restarted collector finds its
 * telemetry again.
 */
export function projectDbPath(projectDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const absolute = resolve(projectDir);
  const name = basename(absolute).replace(/[^A-Za-z0-9._-]+/g, "_") || "root";
  const hash = createHash("sha256").update(absolute).digest("hex").slice(0, 8);
  return join(stateDir(env), "projects", `${name}-${hash}`, "telemetry.sqlite");
}

export function runDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "monitor", "run");
}

/**
 * The file system proper-lockfile is given: its lock folders are made owner-only. A lock folder
 * others could write in could be filled by them, and a folder that is not empty cannot be
 * removed to unlock.
 */
export const privateLockFs: Record<string, unknown> = {
  ...fs,
  mkdir: (path: fs.PathLike, callback: (error: NodeJS.ErrnoException | null) => void) =>
    fs.mkdir(path, { mode: PRIVATE_DIR_MODE }, (error) => callback(error)),
};

function ownUid(): number | null {
  return process.getuid?.() ?? null;
}

/**
 * Creates `path` (and missing parents) owner-only. Folders that already exist keep their mode:
 * a folder the user chose (`--db` somewhere) is theirs to set.
 */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates the state folder, `monitor/` and `monitor/run/`, and makes them owner-only: they are
 * obs's own, and folders made by an older version (or under a loose umask) are tightened here.
 * Returns the state folder.
 */
export function ensureStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = stateDir(env);
  for (const dir of [root, join(root, "monitor"), runDir(env)]) {
    makePrivateDir(dir);
    const stats = lstatSync(dir);
    if (stats.isDirectory() && stats.uid === ownUid() && (stats.mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
  }
  return root;
}

/**
 * Why `path` cannot be trusted to hold this user's control sockets, or null when it can: it
 * must be a real folder (lstat: a link is refused, never followed), owned by this user, with
 * no access for anyone else. Anyone who can write in it can replace a socket and answer for
 * the collector.
 */
export function privateDirProblem(path: string): string | null {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  if (stats.isSymbolicLink()) return "is a symbolic link";
  if (!stats.isDirectory()) return "is not a folder";
  const uid = ownUid();
  if (uid !== null && stats.uid !== uid) return `belongs to another user (uid ${stats.uid}, not ${uid})`;
  if ((stats.mode & 0o077) !== 0) {
    return `has mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}, so other users can reach it (it must be 0700)`;
  }
  return null;
}
