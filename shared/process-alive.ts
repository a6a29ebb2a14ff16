import { procStat } from "./proc-stat.js";

/**
 * Whether a process with this pid exists and has not exited (signal 0 checks without
 * signalling). One that may not be signalled (EPERM: another user's) exists: taken for gone,
 * its lock or its place in the registry would be taken from it. One that exited but that its
 * parent has not reaped (a zombie) is gone: signal 0 still reaches it, and a detached
 * collector's parent is init, which may reap late or, as a container's first process may,
 * never.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !exitedUnreaped(pid);
}

/**
 * Whether the process has exited and waits to be reaped: its state in `/proc/PID/stat` (Linux)
 * is Z (zombie) or X (dead). Where there is no such file to read, no process is taken for one.
 */
function exitedUnreaped(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state === "Z" || state === "X";
}

/**
 * Whether the process with `pid` is the one that recorded `startTicks` as its own start (its
 * registry entry's, from `/proc/self/stat`): "same" when `/proc/PID/stat` gives exactly that
 * start, "other" when it gives another (the pid was given to a later process), "unknown" when
 * there is nothing to compare (an entry an older obs wrote, no /proc, or no such process). The
 * start is counted in clock ticks after boot, which a step of the wall clock does not move, as
 * it moves a start worked out from /proc/stat's `btime`.
 */
export type StartIdentity = "same" | "other" | "unknown";

export function startIdentity(pid: number, startTicks: number | undefined): StartIdentity {
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isSafeInteger(startTicks)) return "unknown";
  const stat = procStat(pid);
  if (stat === null || !Number.isSafeInteger(stat.startTicks)) return "unknown";
  return stat.startTicks === startTicks ? "same" : "other";
}

/** This process's start in clock ticks after boot (`/proc/self/stat`), or undefined without /proc. */
export function ownStartTicks(): number | undefined {
  const ticks = procStat("self")?.startTicks;
  return Number.isSafeInteger(ticks) ? ticks : undefined;
}

/** Whether this system shows processes' starts in /proc, so that startIdentity can answer. */
export function startsReadable(): boolean {
  return ownStartTicks() !== undefined;
}

/** Whether the process is stopped (SIGSTOP, Ctrl+Z, a debugger): T or t in `/proc/PID/stat`. */
export function processStopped(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state === "T" || state === "t";
}
