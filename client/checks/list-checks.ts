/** `obs list`: the tests the specs declare, without starting a browser or a model. */
import { relative } from "node:path";
import { ExitCode } from "../../shared/exit-codes.js";
import { safeText } from "../render/table.js";
import { loadConfig } from "./config/config-file.js";
import { type RunFlags, specPatterns } from "./config/run-settings.js";
import { loadSpecs } from "./run-checks.js";

export async function listChecks(
  flags: RunFlags,
  configPath: string | undefined,
  _env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<number> {
  const loaded = await loadConfig(configPath, cwd);
  const { patterns, patternsDir } = specPatterns(flags, loaded.config, loaded.dir, cwd);
  const specs = await loadSpecs(patterns, patternsDir);
  let count = 0;
  for (const spec of specs) {
    const file = relative(cwd, spec.file) || spec.file;
    for (const test of spec.tests) {
      count += 1;
      process.stdout.write(`${safeText(file)} > ${safeText(test.name)}${test.skip ? "  (skipped)" : ""}\n`);
    }
  }
  process.stdout.write(`${count} tests in ${specs.length} files\n`);
  return ExitCode.ok;
}
