import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { chmodSync, lstatSync, mkdirSync, readlinkSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";

/**
 * Telemetry holds whatever applications log (tokens, passwords in URLs): every folder obs
 * creates is owner-only and every file owner-only read/write, whatever the umask.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The obs state folder: `OBS_STATE_DIR` when set (tests use it so they never touch a real
 * home), else the XDG state home convention: `$XDG_STATE_HOME/obs` or `~/.local/state/obs`.
 * A relative `OBS_STATE_DIR` is refused (StateDirError): each command would resolve it against
 * its own folder, so a collector started in one folder would be missing for a command run in
 * another (a relative `XDG_STATE_HOME` is ignored, as the XDG convention says).
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.OBS_STATE_DIR;
  if (given && !isAbsolute(given)) {
    throw new StateDirError(
      `OBS_STATE_DIR=${given} is a relative path, which each command would read against its own folder; give an absolute path (OBS_STATE_DIR="$PWD/${given}")`,
    );
  }
  if (given) return given;
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

/** The user this process acts as: the effective uid, which the kernel checks access by. */
export function ownUid(): number | null {
  return process.geteuid?.() ?? null;
}

/**
 * Creates `path` (and missing parents) owner-only. Folders that already exist keep their mode:
 * a folder the user chose (`--db` somewhere) is theirs to set.
 */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * The state folder cannot be used safely: another user could replace what obs keeps there
 * (registry files, sockets, logs, the store), or point it somewhere else. Exit 2 in `obs` and
 * `obsd`, as any other configuration they cannot start with.
 */
export class StateDirError extends Error {
  override name = "StateDirError";
  /** The CLI's and the MCP tools' error code for it (a setting to correct). */
  readonly code = "invalid_config";
}

/** What `folderTrustProblem` needs of a folder's (or a link's) stat. */
export interface OwnerAndMode {
  uid: number;
  mode: number;
  isSymbolicLink(): boolean;
}

/**
 * Why a folder on the way to the state folder (or a symbolic link on that way) lets another
 * user change what lies under it, or null when it does not: it must belong to this user or to
 * root, and a folder anyone may write in must have the sticky bit (as /tmp has), so that others
 * cannot rename or replace what is not theirs. Group-writable folders are accepted, as OpenSSH's
 * checks of a home folder are commonly configured to: user-private groups are the usual case.
 * Pure, so that other users' folders can be tested without being root.
 */
export function folderTrustProblem(stats: OwnerAndMode, uid: number): string | null {
  if (stats.uid !== uid && stats.uid !== 0) return `belongs to another user (uid ${stats.uid}, not ${uid})`;
  if (!stats.isSymbolicLink() && (stats.mode & 0o002) !== 0 && (stats.mode & 0o1000) === 0) {
    return `can be written by every user (mode ${(stats.mode & 0o7777).toString(8).padStart(4, "0")}) and has no sticky bit`;
  }
  return null;
}

/** Where a path leads, and the first part of its way another user could change, with why. */
export interface TrustedWay {
  /** The path with every link on it followed; parts that do not exist yet kept as given. */
  resolved: string;
  problem: string | null;
}

/** Links followed before a path counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Follows `path` one part at a time, as the kernel would, and finds the first part of its way
 * that lets another user choose where it leads: a folder that is another user's or that every
 * user may write in without the sticky bit (folderTrustProblem), or a link another user made,
 * wherever it lies: at the path, in its folders, or on the way a link of this user's leads
 * (a link of ours to /tmp/x, where someone planted x as a link of theirs). The last part,
 * when not a folder (`lastIsFolder` false: a file obs will open), is only checked for being
 * such a link. Parts that do not exist yet end the walk: whoever makes them makes them their
 * own, in a folder already checked.
 */
export function trustedWay(path: string, uid: number, lastIsFolder: boolean): TrustedWay {
  const parts = resolve(path)
    .split(sep)
    .filter((part) => part !== "");
  let current: string = sep;
  let links = 0;
  const rootProblem = folderTrustProblem(lstatSync(current), uid);
  if (rootProblem) return { resolved: resolve(path), problem: `${current} ${rootProblem}` };
  while (parts.length > 0) {
    const name = parts.shift() as string;
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { resolved: join(next, ...parts), problem: null };
      throw error;
    }
    if (stats.isSymbolicLink()) {
      if (stats.uid !== uid && stats.uid !== 0) {
        return {
          resolved: next,
          problem: `${next} is a link that belongs to another user (uid ${stats.uid}, not ${uid})`,
        };
      }
      if (++links > MAX_LINKS) return { resolved: next, problem: `${next} leads through more than ${MAX_LINKS} links` };
      const target = readlinkSync(next);
      parts.unshift(...target.split(sep).filter((part) => part !== ""));
      if (isAbsolute(target)) current = sep;
      continue;
    }
    if (parts.length > 0 || lastIsFolder) {
      const problem = folderTrustProblem(stats, uid);
      if (problem) return { resolved: next, problem: `${next} ${problem}` };
    }
    current = next;
  }
  return { resolved: current, problem: null };
}

/**
 * Refuses a state folder that another user could change what lies in (trustedWay). A
 * state folder under another user's folder (`OBS_STATE_DIR=/tmp/theirs/obs`) would let them
 * swap `monitor/` for a link to this user's home, and obs would write its logs over whatever
 * file the link names.
 */
function refuseUntrustedPath(root: string, uid: number): void {
  const { problem } = trustedWay(root, uid, true);
  if (problem) {
    throw new StateDirError(
      `refusing the state folder ${root}: ${problem}, so another local user could replace what obs keeps there. Use a folder of your own (OBS_STATE_DIR), or remove the folder and let obs make it.`,
    );
  }
}

/** The state folder must be this user's, on a path only this user (and root) can change. */
function refuseUntrustedRoot(root: string): void {
  const uid = ownUid();
  if (uid === null) return;
  refuseUntrustedPath(root, uid);
  const owner = statSync(root).uid;
  if (owner !== uid) {
    throw new StateDirError(
      `refusing the state folder ${root}: it belongs to another user (uid ${owner}, not ${uid}). Use a folder of your own (OBS_STATE_DIR).`,
    );
  }
}

/**
 * Before reading what an earlier command left in the state folder (a saved collector URL, which
 * decides where telemetry goes): refuses (StateDirError) a state folder another user could have
 * written in. A state folder that does not exist yet holds nothing to read.
 */
export function checkStateDir(env: NodeJS.ProcessEnv = process.env): void {
  const root = stateDir(env);
  if (fs.existsSync(root)) refuseUntrustedRoot(root);
}

/**
 * Creates the state folder, `monitor/` and `monitor/run/`, and makes them owner-only: they are
 * obs's own, and folders made by an older version (or under a loose umask) are tightened here.
 * Refuses (StateDirError) a state folder on a path another user could change, and a `monitor/`
 * or `monitor/run/` that is a link or not this user's. Returns the state folder.
 */
export function ensureStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = stateDir(env);
  try {
    makePrivateDir(root);
  } catch (error) {
    throw new StateDirError(`cannot make the state folder ${root}: ${(error as Error).message}`);
  }
  refuseUntrustedRoot(root);
  tightenOwnFolder(root, statSync(root));
  for (const dir of [join(root, "monitor"), runDir(env)]) {
    try {
      makePrivateDir(dir);
    } catch (error) {
      throw new StateDirError(`cannot make ${dir}: ${(error as Error).message}`);
    }
    checkOwnSubfolder(root, dir);
  }
  return root;
}

/**
 * Before reading the registry of running collectors (`monitor/run/`), whose entries name the
 * sockets obs asks and the stale files it removes: the same checks as ensureStateDir, without
 * making anything. A state folder another user could change, or a `monitor/` or `monitor/run/`
 * that is a link or another user's, is refused (StateDirError); this user's own folders open to
 * others are tightened. Returns the run folder, or null when there is none yet.
 */
export function checkedRunDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const root = stateDir(env);
  if (!fs.existsSync(root)) return null;
  refuseUntrustedRoot(root);
  const run = runDir(env);
  for (const dir of [join(root, "monitor"), run]) {
    if (!lstatExists(dir)) return null;
    checkOwnSubfolder(root, dir);
  }
  return run;
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Refuses a `monitor/` or `monitor/run/` that is a link, not a folder or not this user's; tightens one that is. */
function checkOwnSubfolder(root: string, dir: string): void {
  const uid = ownUid();
  const stats = lstatSync(dir);
  const problem = stats.isSymbolicLink()
    ? "is a symbolic link"
    : !stats.isDirectory()
      ? "is not a folder"
      : uid !== null && stats.uid !== uid
        ? `belongs to another user (uid ${stats.uid}, not ${uid})`
        : null;
  if (problem) {
    throw new StateDirError(
      `refusing the state folder ${root}: ${dir} ${problem}; obs makes it itself as a private folder. Remove it and start again.`,
    );
  }
  tightenOwnFolder(dir, stats);
}

function tightenOwnFolder(dir: string, stats: { uid: number; mode: number; isDirectory(): boolean }): void {
  if (stats.isDirectory() && stats.uid === ownUid() && (stats.mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * The name of the folder in the temp folder that holds this user's control sockets when the
 * state folder's path is too long for one (`obs-<uid>`).
 */
export function tempSocketDirName(): string {
  return `obs-${process.getuid?.() ?? "user"}`;
}

/** This user's control socket folder in the temp folder (`$TMPDIR/obs-<uid>`). */
export function tempSocketDir(): string {
  return join(tmpdir(), tempSocketDirName());
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
