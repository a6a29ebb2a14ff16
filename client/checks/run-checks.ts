/** `obs test` / `obs run`: everything is checked before a browser starts, then the suite runs. */
import { ExitCode } from "../../shared/exit-codes.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { loadCatalog } from "../skills/skill-catalog.js";
import { appendJournal } from "../skills/skill-journal.js";
import { startBrowser } from "./browser/browser-session.js";
import { locateChromium, requireSupportedEngine } from "./browser/engines.js";
import { loadConfig } from "./config/config-file.js";
import { type RunFlags, resolveRunSettings } from "./config/run-settings.js";
import { createProvider } from "./providers/provider-factory.js";
import { reportersFor } from "./report/reporters.js";
import { runSuite } from "./run-suite.js";
import { discoverSpecs } from "./spec/spec-discovery.js";
import { type LoadedSpec, loadSpec } from "./spec/spec-loading.js";

export async function loadSpecs(patterns: string[], cwd: string): Promise<LoadedSpec[]> {
  const { files } = discoverSpecs(patterns, cwd);
  if (files.length === 0) {
    throw new LifecycleError(
      "invalid_argument",
      `no spec files match ${patterns.map((pattern) => JSON.stringify(pattern)).join(", ")} (spec files end in .obs.ts or .agent.ts)`,
    );
  }
  const specs: LoadedSpec[] = [];
  for (const file of files) specs.push(await loadSpec(file));
  return specs;
}

export async function runChecks(
  flags: RunFlags,
  configPath: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<number> {
  const loaded = await loadConfig(configPath, cwd);
  const settings = resolveRunSettings(flags, loaded.config, loaded.dir, env, cwd);
  requireSupportedEngine(settings.engine, flags.containerized === true);
  const provider = createProvider(settings.provider);
  const binaries = locateChromium(env);
  if (settings.headed && process.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    throw new LifecycleError(
      "invalid_argument",
      "--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set; run without --headed, or under xvfb-run",
    );
  }
  const specs = await loadSpecs(settings.patterns, cwd);
  const report = await runSuite(specs, settings, {
    provider,
    startBrowser: (options) => startBrowser({ ...options, binaries }),
    reporters: reportersFor(settings),
    skills: loadCatalog(loaded.dir).skills,
    recordLessons: (entries) => appendJournal(loaded.dir, entries),
  });
  return report.totals.failed > 0 ? ExitCode.failed : ExitCode.ok;
}
