import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { processAlive } from "../../shared/process-alive.js";
import { PRIVATE_FILE_MODE, privateLockFs } from "../../shared/state-dir.js";
import { LifecycleError } from "./lifecycle-error.js";

/**
 * How long a start waits for the one before it: long enough for that one to wait for a
 * predecessor's collector and then its own (15 s each at most, detached-start.ts).
 */
const WAIT_MS = 45_000;
/**
 * A lock whose heartbeat stopped this long ago is free whoever it names (its pid may have been
 * reused). The heartbeat runs while a start waits for its collector, which never blocks for long.
 */
const STALE_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the lock file names: its holder's pid, and the pid of the collector that holder started
 * (a line `collector PID`), each null when it names none.
 */
function recorded(target: string): { holder: number | null; collector: number | null } {
  const [first = "", second = ""] = readFileSync(target, "utf8").split("\n");
  const pidOf = (text: string) => {
    const pid = Number.parseInt(text.trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  };
  return { holder: pidOf(first), collector: second.startsWith("collector ") ? pidOf(second.slice(10)) : null };
}

/** The start lock, held: what a start does under it, and what its predecessor left. */
export interface StartLock {
  /**
   * The collector a start killed while holding the lock had started, when it is still running:
   * it may not have registered yet, and the start that took the lock over waits for it to.
   */
  readonly predecessorCollector: number | null;
  /** Names the collector this start has spawned, for a start that takes the lock over. */
  noteCollector(pid: number): void;
  release(): Promise<void>;
}

/** Whether the holder named is gone (our own pid there is a predecessor's, reused). */
function holderGone(pid: number | null): boolean {
  return pid !== null && (pid === process.pid || !processAlive(pid));
}

/**
 * One attempt at the lock, under the gate: taken (and this process named as its holder), or
 * taken over from a holder that is gone, or null while a live holder has it.
 */
async function attempt(target: string): Promise<StartLock | null> {
  const take = () => lockfile.lock(target, { fs: privateLockFs, realpath: false, stale: STALE_MS, retries: 0 });
  let release: () => Promise<void>;
  let predecessorCollector: number | null = null;
  try {
    release = await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const left = recorded(target);
    if (!holderGone(left.holder)) return null;
    predecessorCollector = left.collector !== null && processAlive(left.collector) ? left.collector : null;
    rmSync(`${target}.lock`, { recursive: true, force: true });
    try {
      release = await take();
    } catch (retry) {
      // Another start that takes the lock without the gate (an older obs) got there first.
      if ((retry as NodeJS.ErrnoException).code === "ELOCKED") return null;
      throw retry;
    }
  }
  // A predecessor's collector stays named until this start names its own: killed while it
  // waits for that collector, this start leaves it known to the next one.
  const named = (collector: number | null) =>
    writeFileSync(target, `${process.pid}\n${collector === null ? "" : `collector ${collector}\n`}`);
  named(predecessorCollector);
  return {
    predecessorCollector,
    noteCollector: (pid) => named(pid),
    release: async () => {
      // Named no more before it is free: a holder named while the lock is free would be taken for this one.
      writeFileSync(target, "");
      await release();
    },
  };
}

/**
 * Takes the lock that serializes detached starts (`<monitor>/start.lock`, proper-lockfile),
 * and returns its release. The lock file names its holder's pid, so a start killed with
 * kill -9 does not hold up the next one: the lock of a holder that is gone is taken over at
 * once. Taking and taking over go through a short second lock (the gate), so two starts never
 * both take over the same lock, and none takes over a lock whose new holder has not yet been
 * named. A holder killed in the instant between taking the lock and naming itself leaves a
 * lock that frees itself when its heartbeat is 30 s old. The file also names the collector its
 * holder spawned, so a start that takes over from a killed one knows of a collector that may not
 * have registered yet (StartLock.predecessorCollector).
 */
export async function takeStartLock(monitorDir: string): Promise<StartLock> {
  const target = join(monitorDir, "start.lock");
  writeFileSync(target, "", { flag: "a", mode: PRIVATE_FILE_MODE });
  const gate = join(monitorDir, "start-gate");
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const openGate = await lockfile.lock(gate, {
      fs: privateLockFs,
      realpath: false,
      stale: 2_000,
      retries: { retries: 100, minTimeout: 10, maxTimeout: 50 },
    });
    let lock: StartLock | null;
    try {
      lock = await attempt(target);
    } finally {
      await openGate();
    }
    if (lock !== null) return lock;
    if (Date.now() > deadline) {
      const { holder } = recorded(target);
      throw new LifecycleError(
        "timeout",
        `waited ${WAIT_MS / 1000} s for another obs monitor start${holder === null ? "" : ` (pid ${holder})`} to finish starting its collector; try again when it has`,
        { lock: target, pid: holder },
      );
    }
    await sleep(50 + Math.random() * 50);
  }
}
