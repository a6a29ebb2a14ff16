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

/** Attempts at the start lock while another start holds it: about 20 s in all (START_WAIT_MS). */
const START_ATTEMPTS = 200;
const START_WAIT_MS = { first: 25, most: 100 };

/** Whether a lock failed because another process holds it (proper-lockfile's ELOCKED, from mkdir's EEXIST). */
function heldByAnother(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ELOCKED" || code === "EEXIST";
}

/** A lock that cannot be made at all (a folder this user cannot write, a read-only disk): exit 4. */
function cannotLock(givenPath: string, error: unknown): StoreOpenError {
  return new StoreOpenError(
    `cannot lock ${givenPath}, whose lock is a folder beside it: ${(error as Error).message}`,
    "open",
  );
}

/**
 * Takes the short lock that serializes starts on a store, waiting while another start holds
 * it. Any other failure is final at once: retried, an unwritable folder kept a start waiting
 * 20 s for the same EACCES, longer than `obs monitor start` waits for an answer.
 */
async function takeStartLock(
  givenPath: string,
  dbPath: string,
  lockFs: Record<string, unknown>,
): Promise<() => Promise<void>> {
  for (let attempt = 1; ; attempt++) {
    try {
      // proper-lockfile's own realpath option is off: the path is already real.
      return await lockfile.lock(`${dbPath}.start`, { fs: lockFs, realpath: false, stale: 10_000 });
    } catch (error) {
      if (!heldByAnother(error)) throw cannotLock(givenPath, error);
      if (attempt >= START_ATTEMPTS) throw error;
      const wait = Math.min(START_WAIT_MS.most, START_WAIT_MS.first * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
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
 * A lock that cannot be made at all is a StoreOpenError at once. `lockFs` is the file system
 * proper-lockfile works through (tests give one whose mkdir fails).
 */
export async function lockStore(
  givenPath: string,
  cwd: string,
  onLost: (error: Error) => void,
  lockFs: Record<string, unknown> = privateLockFs,
): Promise<StoreLock> {
  const dbPath = claimStoreFile(givenPath);
  const releaseStart = await takeStartLock(givenPath, dbPath, lockFs);
  let releaseStore: () => Promise<void>;
  /** Once lost, the lock and the owner file may be another collector's: neither is touched. */
  let lost = false;
  try {
    const take = () =>
      lockfile.lock(dbPath, {
        fs: lockFs,
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
      if (!heldByAnother(error)) throw cannotLock(givenPath, error);
      const holder = readHolder(dbPath);
      if (holder === null || alive(holder.pid)) throw new StoreInUseError(givenPath, holder);
      rmSync(`${dbPath}.lock`, { recursive: true, force: true });
      releaseStore = await take().catch((failure: unknown) => {
        throw heldByAnother(failure) ? failure : cannotLock(givenPath, failure);
      });
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
