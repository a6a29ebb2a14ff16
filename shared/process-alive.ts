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
