/** `obs init`: a starter spec that uses the spec API correctly. Never overwrites a file. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, STARTER_SPEC, { flag: "wx" });
  return relative(cwd, target) || target;
}
