import { sep } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";

export type Choice =
  | { kind: "chosen"; entry: RegistryEntry; reason: "project" | "sole" }
  | { kind: "none" }
  | { kind: "ambiguous"; candidates: RegistryEntry[] };

/** Whether `dir` is `cwd` itself or one of its parent folders. */
export function isParentOrSelf(dir: string, cwd: string): boolean {
  if (dir === cwd) return true;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return cwd.startsWith(prefix);
}

/**
 * Which running collector a query from `cwd` talks to: the one started in the deepest folder
 * that contains `cwd`; else the only one running; otherwise none, or an ambiguity to report.
 */
export function chooseCollector(running: RegistryEntry[], cwd: string): Choice {
  const containing = running.filter((entry) => isParentOrSelf(entry.cwd, cwd));
  if (containing.length > 0) {
    const deepest = Math.max(...containing.map((entry) => entry.cwd.length));
    const best = containing.filter((entry) => entry.cwd.length === deepest);
    if (best.length === 1) return { kind: "chosen", entry: best[0] as RegistryEntry, reason: "project" };
    return { kind: "ambiguous", candidates: best };
  }
  if (running.length === 1) return { kind: "chosen", entry: running[0] as RegistryEntry, reason: "sole" };
  if (running.length === 0) return { kind: "none" };
  return { kind: "ambiguous", candidates: running };
}
