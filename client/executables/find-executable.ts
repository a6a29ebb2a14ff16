/** Finding programs on this machine, as a shell would. Used for the coding agent and the browser. */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** True for a regular file this process may execute. */
export function isExecutableFile(path: string | undefined): path is string {
  if (!path) return false;
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the PATH folders; relative and empty entries are ignored. Null when absent. */
export function findOnPath(name: string, pathVariable: string | undefined): string | null {
  for (const folder of (pathVariable ?? "").split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue;
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
