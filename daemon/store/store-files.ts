import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, lstatSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ownUid, PRIVATE_FILE_MODE, trustedWay } from "../../shared/state-dir.js";
import { StoreOpenError } from "./store-errors.js";

/**
 * The files beside a store that obs and SQLite create, chmod and write: the database, its
 * write-ahead log and shared memory, and the file naming the collector that holds it.
 */
export function storeFiles(dbPath: string): string[] {
  return [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}.owner.json`];
}

/**
 * Where a store path (as given) leads, refusing (StoreOpenError) a way another user could have
 * chosen (trustedWay): a folder on it, or on the way a link leads, that is another user's or
 * that everyone may write in without the sticky bit, or a link on it that another user made
 * (in /tmp anyone may plant one: it would choose which of this user's files obsd makes
 * owner-only, or where it writes telemetry). Links the user made are followed. Returns the path
 * with every link followed.
 */
export function trustedStorePath(dbPath: string): string {
  const uid = ownUid();
  if (uid === null) return dbPath;
  const { resolved, problem } = trustedWay(dbPath, uid, false);
  if (problem !== null) {
    throw new StoreOpenError(
      `refusing the store ${dbPath}: ${problem}, so another local user could choose where obs writes it; keep the store in a folder of your own`,
      "open",
    );
  }
  return resolved;
}

/**
 * Opens the store file at `resolved` (trustedStorePath's: every link already followed),
 * creating it owner-only where it is missing, never through a link planted there since
 * (O_NOFOLLOW) and never blocking on a FIFO planted there (O_NONBLOCK): anything but a plain
 * file is refused.
 */
export function createStoreFile(resolved: string): void {
  const flags =
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = openSync(resolved, flags, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: a link; ENXIO: a FIFO no one reads.
    if (code === "ELOOP" || code === "ENXIO")
      throw unsafeStoreFile(resolved, code === "ELOOP" ? "is a symbolic link" : "is not a plain file");
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw unsafeStoreFile(resolved, "is not a plain file");
  } finally {
    closeSync(fd);
  }
}

function unsafeStoreFile(file: string, problem: string): StoreOpenError {
  return new StoreOpenError(
    `${file} ${problem}: obs writes a store's files only as files of its own, never through a link or into another user's file (anyone who can write in ${dirname(file)} could have put it there); remove it, or keep the store in a folder of your own`,
    "open",
  );
}

/**
 * Makes a store file owner-only without following a link planted at it (chmod would change the
 * mode of whatever the link names): opened O_NOFOLLOW, its mode set on the open file. A file
 * that is missing is left so.
 */
export function restrictFileToOwner(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ELOOP") throw unsafeStoreFile(file, "is a symbolic link");
    throw error;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
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
    if (problem !== null) throw unsafeStoreFile(file, problem);
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
