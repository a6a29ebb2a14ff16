import { existsSync, readFileSync } from "node:fs";

/**
 * Whether a process has exited, read apart from the code under test: no such process, or one
 * whose state in /proc is Z or X (exited, its parent not having reaped it yet). Where there is
 * no /proc to read, a process signal 0 reaches is taken as running.
 */
export function processExited(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  if (!existsSync("/proc/self/stat")) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return true; // gone between the signal and the read
  }
}
