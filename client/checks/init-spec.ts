/** `obs init`: a starter spec that uses the spec API correctly. Never overwrites a file. */
import { existsSync, mkdirSync, type Stats, statSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";

export const DEFAULT_SPEC_PATH = "tests/homepage.obs.ts";

export const STARTER_SPEC = `import { test } from "obs/test";

// Run with: obs test --base-url http://localhost:3000
// The agent reads the page and uses the browser like a person; act() does, check() verifies.
test("homepage shows its main heading", async ({ agent }) => {
  await agent.goto("/");
  await agent.check("the page shows a main heading");
});
`;

export function initSpec(cwd: string, path: string = DEFAULT_SPEC_PATH): string {
  const target = resolve(cwd, path);
  if (existsSync(target)) {
    throw new LifecycleError(
      "invalid_argument",
      `${relative(cwd, target) || target} already exists; obs init never overwrites a file`,
    );
  }
  const shown = relative(cwd, target) || target;
  // The path is the user's argument: a file where a folder must be, or a folder they cannot
  // write in, is theirs to fix (exit 2), not a failure of obs's (mkdir's own EEXIST named
  // neither the path nor the file in the way).
  const inTheWay = fileAbove(target);
  if (inTheWay !== null) {
    throw new LifecycleError(
      "invalid_argument",
      `cannot write ${shown}: ${relative(cwd, inTheWay) || inTheWay} is a file, not a folder`,
    );
  }
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, STARTER_SPEC, { flag: "wx" });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === "EEXIST")
      throw new LifecycleError("invalid_argument", `${shown} already exists; obs init never overwrites a file`);
    throw new LifecycleError("invalid_argument", `cannot write ${shown}: ${message}`);
  }
  return shown;
}

/** The nearest existing folder on the way to `target`'s folder, when it is not a folder. */
function fileAbove(target: string): string | null {
  for (let folder = dirname(target); ; folder = dirname(folder)) {
    const stats = statOrNone(folder);
    if (stats !== undefined) return stats.isDirectory() ? null : folder;
    if (dirname(folder) === folder) return null;
  }
}

/**
 * A path's stats; none when it does not exist, a file lies on its way (ENOTDIR) or it cannot be
 * read (then writing there fails too, and says why).
 */
function statOrNone(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
