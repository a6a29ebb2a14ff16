import { readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import lockfile from "proper-lockfile";
import { processAlive } from "../../shared/process-alive.js";
import { makePrivateDir, privateLockFs } from "../../shared/state-dir.js";
import { type StoreHolder, storeInUseMessage } from "../../shared/store-owner.js";
import { StoreOpenError } from "../store/store-errors.js";
import { createStoreFile, refuseForeignStoreFiles, trustedStorePath, writePrivateFile } from "../store/store-files.js";

/** A second collector asked for a store file another one holds. */
export class StoreInUseError extends Error {
  override name = "StoreInUseError";
  constructor(
    readonly dbPath: string,
    readonly holder: StoreHolder | null,
  ) {
    super(storeInUseMessage(dbPath, holder));
  }
}

export interface StoreLock {
  /** The store file's real path (symlinks resolved): the one file this lock is for. */
  path: string;
  /** Records the address once the collector listens, so a refused start can name it. */
  describe(holder: StoreHolder): void;
  release(): Promise<void>;
}

/**
 * How old the lock's heartbeat may get before another start may take it. The heartbeat runs
 * on the main thread, which only routes requests (SQLite runs in workers), so it is never late
 * by this much while the collector lives.
 */
const STALE_MS = 20_000;

const ownerPath = (dbPath: string) => `${dbPath}.owner.json`;

function readHolder(dbPath: string): StoreHolder | null {
  try {
    const holder = JSON.parse(readFileSync(ownerPath(dbPath), "utf8")) as Partial<StoreHolder>;
    if (typeof holder.pid !== "number" || typeof holder.cwd !== "string") return null;
    return { pid: holder.pid, cwd: holder.cwd, port: holder.port ?? null, baseUrl: holder.baseUrl ?? null };
  } catch {
    return null;
  }
}

/** Whether the holder named in the owner file is another process that has not exited. */
function alive(pid: number): boolean {
  return pid !== process.pid && processAlive(pid);
}

/**
 * Creates the store file if it is missing (owner-only, as the store connection does) and
 * returns its real path. The lock must be taken on that path: locked as given, a symlink to
 * the file (or macOS's /tmp for /private/tmp) would be a second lock on the same store.
 */
function claimStoreFile(dbPath: string): string {
  try {
    // Checked again once its folders exist: one made meanwhile by someone else is theirs.
    makePrivateDir(dirname(trustedStorePath(dbPath)));
    const resolved = trustedStorePath(dbPath);
    createStoreFile(resolved);
    const real = realpathSync(resolved);
    refuseForeignStoreFiles(real);
    return real;
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    // A folder given as --db, or one this user cannot write: the store cannot be opened (exit 4).
    throw new StoreOpenError((error as Error).message, "open");
  }
}

/**
 * Takes the store file for this collector's whole life, or throws StoreInUseError naming the
 * collector that has it (and the path as the user gave it). The lock is a folder next to the store (proper-lockfile: mkdir is
 * atomic) whose heartbeat the holder refreshes; no fcntl lock, which SQLite's own use of
 * fcntl on the same file would silently drop. A holder killed with -9 cannot keep it: its
 * recorded pid is gone, so the next start takes the lock at once (and a lock whose heartbeat
 * stopped is stale for proper-lockfile anyway, should the pid have been reused). Taking over
 * from a dead holder is serialized by a short second lock, so two starts cannot both do it.
 */
export async function lockStore(givenPath: string, cwd: string, onLost: (error: Error) => void): Promise<StoreLock> {
  const dbPath = claimStoreFile(givenPath);
  // proper-lockfile's own realpath option is off: the path is already real.
  const releaseStart = await lockfile.lock(`${dbPath}.start`, {
    fs: privateLockFs,
    realpath: false,
    stale: 10_000,
    retries: { retries: 200, minTimeout: 25, maxTimeout: 100 },
  });
  let releaseStore: () => Promise<void>;
  /** Once lost, the lock and the owner file may be another collector's: neither is touched. */
  let lost = false;
  try {
    const take = () =>
      lockfile.lock(dbPath, {
        fs: privateLockFs,
        realpath: false,
        stale: STALE_MS,
        update: STALE_MS / 4,
        onCompromised: (error) => {
          lost = true;
          onLost(error);
        },
      });
    try {
      releaseStore = await take();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      const holder = readHolder(dbPath);
      if (holder === null || alive(holder.pid)) throw new StoreInUseError(givenPath, holder);
      rmSync(`${dbPath}.lock`, { recursive: true, force: true });
      releaseStore = await take();
    }
  } finally {
    await releaseStart();
  }
  const describe = (holder: StoreHolder) => writePrivateFile(ownerPath(dbPath), `${JSON.stringify(holder)}\n`);
  describe({ pid: process.pid, cwd, port: null, baseUrl: null });
  let released: Promise<void> | null = null;
  return {
    path: dbPath,
    describe,
    release: () => {
      released ??= (async () => {
        if (lost) return;
        rmSync(ownerPath(dbPath), { force: true });
        await releaseStore().catch(() => {});
      })();
      return released;
    },
  };
}
