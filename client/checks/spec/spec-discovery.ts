/**
 * Spec discovery, as the spec defines it: each pattern in order is an existing file (taken as
 * given), an existing directory (every spec file under it) or a glob. Files under
 * node_modules/, dist/, .obs/ and .git/ are always skipped.
 */
import { statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import fastGlob from "fast-glob";

export const SPEC_FILE = /\.(obs|agent)\.[cm]?[tj]sx?$/;
export const SKIPPED_DIRS = ["node_modules", "dist", ".obs", ".git"];
const IGNORE = SKIPPED_DIRS.map((dir) => `**/${dir}/**`);

export function isSpecFile(path: string): boolean {
  return SPEC_FILE.test(path);
}

function inSkippedDir(path: string, cwd: string): boolean {
  const parts = relative(cwd, path).split(sep);
  return parts.slice(0, -1).some((part) => SKIPPED_DIRS.includes(part));
}

function kindOf(path: string): "file" | "dir" | null {
  try {
    const stats = statSync(path);
    return stats.isFile() ? "file" : stats.isDirectory() ? "dir" : null;
  } catch {
    return null;
  }
}

export interface DiscoveredSpecs {
  files: string[];
  /** Patterns that matched no spec file, to report. */
  unmatched: string[];
}

/** Absolute spec paths in pattern order (sorted within a pattern), each once. */
export function discoverSpecs(patterns: string[], cwd: string): DiscoveredSpecs {
  const seen = new Set<string>();
  const files: string[] = [];
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const target = resolve(cwd, pattern);
    const kind = kindOf(target);
    let found: string[];
    if (kind === "file") found = [target];
    else {
      const matches =
        kind === "dir"
          ? fastGlob.sync("**/*", { cwd: target, absolute: true, ignore: IGNORE, dot: false, onlyFiles: true })
          : fastGlob.sync(pattern, { cwd, absolute: true, ignore: IGNORE, dot: false, onlyFiles: true });
      found = matches
        .map((path) => resolve(path))
        .filter((path) => isSpecFile(path) && !inSkippedDir(path, kind === "dir" ? target : cwd))
        .sort();
    }
    if (found.length === 0) unmatched.push(pattern);
    for (const path of found) {
      if (seen.has(path)) continue;
      seen.add(path);
      files.push(path);
    }
  }
  return { files, unmatched };
}
