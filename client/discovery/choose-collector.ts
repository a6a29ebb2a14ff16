import { sep } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";

export type Choice =
  | { kind: "chosen"; entry: RegistryEntry; reason: "project" | "sole" }
  | { kind: "none" }
  | { kind: "ambiguous"; candidates: RegistryEntry[] }
  /** The collector discovery would choose is alive but does not answer: no other is chosen for it. */
  | { kind: "unresponsive"; entry: RegistryEntry };

/** Whether `dir` is `cwd` itself or one of its parent folders. */
export function isParentOrSelf(dir: string, cwd: string): boolean {
  if (dir === cwd) return true;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return cwd.startsWith(prefix);
}

/**
 * Which running collector a query from `cwd` talks to: the one started in the deepest folder
 * that contains `cwd`; else the only one running; otherwise none, or an ambiguity to report.
 * The `unresponsive` ones (alive, not answering: running-collectors.ts) take part in the choice
 * as if they answered, so that a collector stopped for a moment is never replaced by another
 * project's: when one of them would be chosen, the answer says so instead.
 */
export function chooseCollector(running: RegistryEntry[], cwd: string, unresponsive: RegistryEntry[] = []): Choice {
  const all = [...running, ...unresponsive];
  const chosen = (entry: RegistryEntry, reason: "project" | "sole"): Choice =>
    unresponsive.includes(entry) ? { kind: "unresponsive", entry } : { kind: "chosen", entry, reason };
  const containing = all.filter((entry) => isParentOrSelf(entry.cwd, cwd));
  if (containing.length > 0) {
    const deepest = Math.max(...containing.map((entry) => entry.cwd.length));
    const best = containing.filter((entry) => entry.cwd.length === deepest);
    if (best.length === 1) return chosen(best[0] as RegistryEntry, "project");
    return { kind: "ambiguous", candidates: best };
  }
  if (all.length === 1) return chosen(all[0] as RegistryEntry, "sole");
  if (all.length === 0) return { kind: "none" };
  return { kind: "ambiguous", candidates: all };
}
