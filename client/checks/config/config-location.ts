/** Finding obs.config.ts: kept apart from loading it, so commands that only need the project folder load no TypeScript loader or validator. */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const CONFIG_NAMES = ["obs.config.ts", "obs.config.mts", "obs.config.js", "obs.config.mjs"];

/** The nearest config file in `cwd` or a folder above it, or null. */
export function findConfig(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of CONFIG_NAMES) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
