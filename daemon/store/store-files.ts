import { closeSync, constants, fchmodSync, ftruncateSync, lstatSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_FILE_MODE } from "../../shared/state-dir.js";
import { StoreOpenError } from "./store-errors.js";

/**
 * The files beside a store that obs and SQLite create, chmod and write: the database, its
 * write-ahead log and shared memory, and the file naming the collector that holds it.
 */
export function storeFiles(dbPath: string): string[] {
  return [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}.owner.json`];
}

/**
 * Refuses a store whose files, where they exist, are not plain files of this user: in a folder
 * others can write in (`--db /tmp/x.sqlite`), someone could plant `x.sqlite-wal` as a link to
 * a file of the user's, which SQLite would then write the log into, or a file of their own that
 * telemetry would be written into for them to read. `dbPath` is the store's real path
 * (links the user gave in it resolved), so only links beside it are refused.
 */
export function refuseForeignStoreFiles(dbPath: string): void {
  const uid = process.getuid?.() ?? null;
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
