/**
 * The agent's settings file on disk. It is found through any link the user made (a dotfile
 * manager's link stays a link; the file it names is what changes), refused where another user
 * could have chosen it, and replaced atomically under a lock, so setups run at once never
 * interleave and an edit another program saves meanwhile is edited again rather than lost.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import lockfile from "proper-lockfile";
import { makePrivateDir, ownUid, PRIVATE_FILE_MODE, privateLockFs, trustedWay } from "../../shared/state-dir.js";
import { SettingsFileError } from "./settings-edit.js";

/** The agent's user settings file: `~/.agentcli/settings.json`. */
export function agentSettingsPath(home: string = homedir()): string {
  return join(home, ".agentcli", "settings.json");
}

const BYTE_ORDER_MARK = "\uFEFF";

/** How often an edit is made again when another program saved the file meanwhile. */
const EDIT_ATTEMPTS = 3;

export interface SettingsFile {
  /** The path as the agent reads it (`~/.agentcli/settings.json`). */
  path: string;
  /** The file that is read and replaced: the path with every link on it followed. */
  realPath: string;
  /** Its text when opened, without a byte-order mark; null when there is no file yet. */
  text: string | null;
}

/** What an edit of the current text (null: no file) makes: the new text, or null to leave the file. */
export interface SettingsRewrite<T> {
  text: string | null;
  outcome: T;
}

export interface RewriteResult<T> {
  outcome: T;
  /** The text the edit was made from (null: there was no file). */
  previous: string | null;
  /** Where that text was kept; null when nothing was replaced. */
  backupPath: string | null;
}

function refuse(path: string, problem: string): never {
  throw new SettingsFileError(`${path} ${problem}; obs left it unchanged`);
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The file's text without its byte-order mark, and the mark, or null when there is no file. */
function readText(realPath: string, path: string): { text: string; mark: string } | null {
  let raw: string;
  try {
    raw = readFileSync(realPath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "EACCES") refuse(path, "cannot be read (permission denied)");
    if (code === "EISDIR") refuse(path, "is a folder, not a file");
    throw error;
  }
  return raw.startsWith(BYTE_ORDER_MARK)
    ? { text: raw.slice(BYTE_ORDER_MARK.length), mark: BYTE_ORDER_MARK }
    : { text: raw, mark: "" };
}

/**
 * Opens the settings file for an edit: follows the links on its path (refusing one another user
 * made, or a folder on the way another user could change: they would choose which file obs
 * rewrites), and refuses a file that is not a regular file of this user's, or that the user made
 * read-only. Throws SettingsFileError naming the path and the problem.
 */
export function openSettingsFile(path: string): SettingsFile {
  try {
    return openChecked(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR")
      refuse(path, "cannot be made: a part of its path is a file, not a folder");
    throw error;
  }
}

function openChecked(path: string): SettingsFile {
  const uid = ownUid();
  let realPath = path;
  if (uid !== null) {
    const way = trustedWay(path, uid, false);
    if (way.problem) refuse(path, `cannot be edited safely: ${way.problem}`);
    realPath = way.resolved;
  }
  const stats = lstatOrNull(realPath);
  if (stats !== null) {
    const shown = realPath === path ? path : `${path} (${realPath})`;
    if (stats.isDirectory()) refuse(shown, "is a folder, not a file");
    if (!stats.isFile()) refuse(shown, "is not a regular file");
    if (uid !== null && stats.uid !== uid) refuse(shown, `belongs to another user (uid ${stats.uid}, not ${uid})`);
    if ((stats.mode & 0o200) === 0) refuse(shown, "is read-only (make it writable to let obs edit it)");
  }
  const text = readText(realPath, path)?.text ?? null;
  refuseUnwritableFolder(path, dirname(realPath));
  return { path, realPath, text };
}

/**
 * The file is replaced by a rename in its folder, so the folder (or, when it does not exist
 * yet, the nearest one that does, where it will be made) must be writable. Checked before a
 * setup starts a collector, so a folder obs cannot write leaves nothing running. Checked by
 * making (and removing) an empty file there: access(2) answers for the real user, not the
 * effective one, and knows nothing of a file system mounted read-only.
 */
function refuseUnwritableFolder(path: string, folder: string): void {
  let existing = folder;
  while (lstatOrNull(existing) === null && dirname(existing) !== existing) existing = dirname(existing);
  const probe = join(existing, `.obs-write-check.${process.pid}.${randomBytes(4).toString("hex")}`);
  try {
    closeSync(openSync(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
      refuse(path, `cannot be written: the folder ${existing} is not writable (${code})`);
    }
    throw error;
  }
  rmSync(probe, { force: true });
}

/** Writes `text` to a new file beside `target` with `mode` (whatever the umask), flushed; returns its path. */
function writeBeside(target: string, text: string, mode: number): string {
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  // O_EXCL: a name someone else made in the meantime is never written through.
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    fchmodSync(fd, mode);
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  return temporary;
}

function replaceWith(target: string, text: string, mode: number): void {
  const temporary = writeBeside(target, text, mode);
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Edits the file under a lock (`<file>.lock`, owner-only): reads it, asks `edit` for the new
 * text, keeps the text read as `<file>.bak` (same mode), and replaces the file atomically (a crash
 * leaves the old file or the new one, never half of either), with the file's own mode, or 0600
 * for a new one. A byte-order mark is kept. When the file changed between the read and the
 * replacement (another program saved it), the edit is made again on what it saved.
 */
export async function rewriteSettingsFile<T>(
  file: SettingsFile,
  edit: (current: string | null) => SettingsRewrite<T>,
): Promise<RewriteResult<T>> {
  const { path, realPath } = file;
  makePrivateDir(dirname(realPath));
  const release = await lockfile.lock(realPath, {
    fs: privateLockFs,
    realpath: false,
    stale: 10_000,
    retries: { retries: 100, minTimeout: 20, maxTimeout: 200 },
  });
  try {
    for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
      const current = readText(realPath, path);
      const { text, outcome } = edit(current?.text ?? null);
      if (text === null) return { outcome, previous: current?.text ?? null, backupPath: null };
      const mode = current === null ? PRIVATE_FILE_MODE : lstatSync(realPath).mode & 0o777;
      const backupPath = current === null ? null : `${realPath}.bak`;
      const temporary = writeBeside(realPath, (current?.mark ?? "") + text, mode);
      const now = readText(realPath, path);
      if (now?.text !== current?.text || now?.mark !== current?.mark) {
        rmSync(temporary, { force: true });
        continue;
      }
      try {
        // The backup only once the edit is sure to land, so a refused edit leaves it as it was.
        if (current !== null) replaceWith(`${realPath}.bak`, current.mark + current.text, mode);
        renameSync(temporary, realPath);
      } catch (error) {
        rmSync(temporary, { force: true });
        throw error;
      }
      return { outcome, previous: current?.text ?? null, backupPath };
    }
    return refuse(path, `changed ${EDIT_ATTEMPTS} times while obs was editing it; run the setup again`);
  } finally {
    await release();
  }
}
