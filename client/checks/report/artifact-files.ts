/**
 * The report folder and the files a run writes in it. They hold what the pages showed, and the
 * action cache is replayed without the model, so the folder must be this user's alone: a folder
 * another user made, or one on a way another user could change, would let them choose which of
 * this user's files a report overwrites (a link planted as report.json) or which actions a run
 * replays (a planted action-cache.json).
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { relative, sep } from "node:path";
import { ownUid, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, trustedWay } from "../../../shared/state-dir.js";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";

function refuse(reportDir: string, problem: string): LifecycleError {
  return new LifecycleError(
    "invalid_argument",
    `refusing the report folder ${reportDir}: ${problem}, so another local user could choose where obs writes its reports or what it replays from the action cache; use a folder of your own (--report-dir)`,
  );
}

/**
 * Checks the report folder before anything is written or read in it, and keeps what the run
 * writes owner-only whatever the umask: group and other bits are masked for the rest of the
 * process (every writer, and the browsers it starts, at once). Refuses (exit 2) a folder on a
 * way another user could change (trustedWay), one that belongs to another user, and a shared
 * folder (sticky or writable by every user), which the run would close and empty. A folder of
 * this user's that an earlier run left open to others is closed. A folder not made yet is made
 * owner-only by the umask.
 */
export function claimReportDir(reportDir: string): void {
  process.umask(process.umask() | 0o077);
  const uid = ownUid();
  if (uid === null) return;
  const { resolved, problem } = trustedWay(reportDir, uid, true);
  if (problem) throw refuse(reportDir, problem);
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!stats.isDirectory()) throw refuse(reportDir, `${resolved} is not a folder`);
  if (stats.uid !== uid) throw refuse(reportDir, `${resolved} belongs to another user (uid ${stats.uid}, not ${uid})`);
  // A shared folder (/tmp, as root) would be closed to everyone else and have what others keep there removed.
  if ((stats.mode & 0o1002) !== 0) {
    throw refuse(
      reportDir,
      `${resolved} is a shared folder (mode ${(stats.mode & 0o7777).toString(8).padStart(4, "0")}): every user may write in it`,
    );
  }
  if ((stats.mode & 0o077) !== 0) chmodSync(resolved, PRIVATE_DIR_MODE);
}

function unsafe(path: string, problem: string): Error {
  return new Error(
    `${path} ${problem}: obs writes its reports only as files and folders of its own, never through a link; remove it`,
  );
}

/**
 * Makes `dir` and the folders between `reportDir` and it, owner-only, and refuses any of them
 * that is a link or not this user's (left there before the report folder was closed).
 */
export function artifactFolder(reportDir: string, dir: string): void {
  const uid = ownUid();
  mkdirSync(reportDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  let current = reportDir;
  for (const name of relative(reportDir, dir).split(sep)) {
    if (name === "") continue;
    if (name === "..") throw new Error(`${dir} is outside the report folder ${reportDir}`);
    current = `${current}${sep}${name}`;
    try {
      mkdirSync(current, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stats = lstatSync(current);
    if (stats.isSymbolicLink()) throw unsafe(current, "is a symbolic link");
    if (!stats.isDirectory()) throw unsafe(current, "is not a folder");
    if (uid !== null && stats.uid !== uid) throw unsafe(current, `belongs to another user (uid ${stats.uid})`);
  }
}

/** Throws unless the open file is a plain file of this user's. */
function refuseUnlessOwnPlainFile(fd: number, path: string): void {
  const stats = fstatSync(fd);
  if (!stats.isFile()) throw unsafe(path, "is not a plain file");
  const uid = ownUid();
  if (uid !== null && stats.uid !== uid) throw unsafe(path, `belongs to another user (uid ${stats.uid})`);
}

/**
 * Writes `data` as the whole of `path`, owner-only, never through a link planted at it
 * (O_NOFOLLOW) nor into a file of another user's; its mode is set on the opened file.
 */
export function writeArtifact(path: string, data: string | Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      PRIVATE_FILE_MODE,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw unsafe(path, "is a symbolic link");
    if (code === "ENXIO") throw unsafe(path, "is not a plain file");
    throw error;
  }
  try {
    refuseUnlessOwnPlainFile(fd, path);
    fchmodSync(fd, PRIVATE_FILE_MODE);
    ftruncateSync(fd, 0);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
}

/** Reads a file the run itself wrote earlier: refused when it is a link, not a plain file or another user's. */
export function readOwnArtifact(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw unsafe(path, "is a symbolic link");
    throw error;
  }
  try {
    refuseUnlessOwnPlainFile(fd, path);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
