/**
 * Whether a process with this pid exists (signal 0 checks without signalling). One that may
 * not be signalled (EPERM: another user's) exists: taken for gone, its lock or its place in the
 * registry would be taken from it.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
