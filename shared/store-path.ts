import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * The path a store file is known by when two are compared: symlinks resolved, in the file and
 * in every folder above it, so `/tmp/x.sqlite` and `/private/tmp/x.sqlite` (or a link to the
 * file) are one store. A file that does not exist yet resolves through its nearest existing
 * folder. Creates nothing: the CLI compares before any collector has made the file.
 */
export function resolvedStorePath(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return path;
    const parent = dirname(path);
    return parent === path ? path : join(resolvedStorePath(parent), basename(path));
  }
}

/** Whether two store paths name the same file (see resolvedStorePath). */
export function sameStore(a: string, b: string): boolean {
  return a === b || resolvedStorePath(a) === resolvedStorePath(b);
}
