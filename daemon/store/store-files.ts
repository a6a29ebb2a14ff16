import { closeSync, constants, fchmodSync, ftruncateSync, lstatSync, openSync, realpathSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ownUid, PRIVATE_FILE_MODE, pathTrustProblem } from "../../shared/state-dir.js";
import { StoreOpenError } from "./store-errors.js";

/**
 * The files beside a store that obs and SQLite create, chmod and write: the database, its
 * write-ahead log and shared memory, and the file naming the collector that holds it.
 */
export function storeFiles(dbPath: string): string[] {
  return [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}.owner.json`];
}

/**
 * Refuses a store path (as given, before anything is made or opened there) that another user
 * could have chosen where it leads: a folder on its way, or on the way to where a link at it
 * resolves, that is another user's or that everyone may write in without the sticky bit
 * (pathTrustProblem), or a link at the path that another user made (in /tmp anyone may plant
 * one: it would choose which of this user's files obsd makes owner-only, or where it writes
 * telemetry). A link the user made is followed.
 */
export function refuseUntrustedStorePath(dbPath: string): void {
  const uid = ownUid();
  if (uid === null) return;
  let problem = pathTrustProblem(dirname(dbPath), uid);
  if (problem === null) {
    const link = lstatOrNull(dbPath);
    if (link?.isSymbolicLink()) {
      if (link.uid !== uid && link.uid !== 0)
        problem = `${dbPath} is a link that belongs to another user (uid ${link.uid})`;
      else problem = pathTrustProblem(dirname(resolvedOrSelf(dbPath)), uid);
    }
  }
  if (problem !== null) {
    throw new StoreOpenError(
      `refusing the store ${dbPath}: ${problem}, so another local user could choose where obs writes it; keep the store in a folder of your own`,
      "open",
    );
  }
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Where a link leads, or the path itself while its target does not exist yet. */
function resolvedOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Opens the store file, creating it owner-only where it is missing: never through a link
 * planted at the path after refuseUntrustedStorePath looked (O_NOFOLLOW), except a link that
 * was there then (the user's own, which it followed).
 */
export function createStoreFile(dbPath: string): void {
  const follow = lstatOrNull(dbPath)?.isSymbolicLink() === true;
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (follow ? 0 : constants.O_NOFOLLOW);
  closeSync(openSync(dbPath, flags, PRIVATE_FILE_MODE));
}

/**
 * Refuses a store whose files, where they exist, are not plain files of this user: in a folder
 * others can write in (`--db /tmp/x.sqlite`), someone could plant `x.sqlite-wal` as a link to
 * a file of the user's, which SQLite would then write the log into, or a file of their own that
 * telemetry would be written into for them to read. `dbPath` is the store's real path
 * (links the user gave in it resolved), so only links beside it are refused.
 */
export function refuseForeignStoreFiles(dbPath: string): void {
  const uid = ownUid();
  for (const file of storeFiles(dbPath)) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new StoreOpenError(`cannot check ${file}: ${(error as Error).message}`, "open");
    }
    const problem = stats.isSymbolicLink()
      ? "is a symbolic link"
      : !stats.isFile()
        ? "is not a plain file"
        : uid !== null && stats.uid !== uid
          ? `belongs to another user (uid ${stats.uid})`
          : null;
    if (problem === null && file === dbPath && stats.nlink > 1) {
      // SQLite keeps a store's log and lock beside the name it was opened by: two collectors on
      // two names of one file would each take their own lock and log, and corrupt it.
      throw new StoreOpenError(
        `${file} has ${stats.nlink} names (hard links): a collector on another of them would not see this one's lock or log, and the two would corrupt the store; remove the other names (ls -i shows the file's number, find -samefile its names)`,
        "open",
      );
    }
    if (problem !== null) {
      throw new StoreOpenError(
        `${file} ${problem}: obs writes a store's files only as files of its own, never through a link or into another user's file (anyone who can write in ${dirname(file)} could have put it there); remove it, or keep the store in a folder of your own`,
        "open",
      );
    }
  }
}

/**
 * Writes `text` as the whole of `path`, owner-only, never through a link planted at `path`
 * (O_NOFOLLOW), its mode set on the opened file rather than by path.
 */
export function writePrivateFile(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    ftruncateSync(fd, 0);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
