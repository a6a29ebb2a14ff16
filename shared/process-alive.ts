import { processStartMs, procStat } from "./proc-stat.js";

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
 * How much later than the time it recorded as its start a process may seem to have started and
 * still be taken for the same: /proc gives the boot time in whole seconds, and the wall clock may
 * have been set a little since. A process with the pid that started later is another one, given
 * the pid after the recorded one ended.
 */
const START_SLACK_MS = 5_000;

/**
 * Whether the process that recorded `pid` and `startedAt` (a collector's registry entry) is still
 * running: alive (processAlive), and not a later process given the same pid, where the start
 * time can be read (Linux); elsewhere an alive pid is taken for it.
 */
export function sameProcessAlive(pid: number, startedAt: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return false;
  const recorded = typeof startedAt === "string" ? Date.parse(startedAt) : Number.NaN;
  const started = processStartMs(pid);
  if (started === null || Number.isNaN(recorded)) return true;
  return started <= recorded + START_SLACK_MS;
}
