import { statSync } from "node:fs";

/** file → "mtime:size"; a file that cannot be read is left out. */
export type FileStamps = Map<string, string>;

export function stampFiles(files: readonly string[]): FileStamps {
  const stamps: FileStamps = new Map();
  for (const file of files) {
    try {
      const stat = statSync(file);
      stamps.set(file, `${stat.mtimeMs}:${stat.size}`);
    } catch {
      // Deleted between discovery and now: nothing to run.
    }
  }
  return stamps;
}

/** Files that are new in `after` or whose stamp changed, in path order. */
export function changedFiles(before: FileStamps, after: FileStamps): string[] {
  return [...after]
    .filter(([file, stamp]) => before.get(file) !== stamp)
    .map(([file]) => file)
    .sort();
}
