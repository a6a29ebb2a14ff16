/** `obs test` / `obs run`: everything is checked before a browser starts, then the suite runs. */
import { ExitCode } from "../../shared/exit-codes.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { loadCatalog } from "../skills/skill-catalog.js";
import { appendJournal, checkJournal } from "../skills/skill-journal.js";
import { type BrowserSession, startBrowser } from "./browser/browser-session.js";
import { type EngineLaunch, locateEngine } from "./browser/engines.js";
import { loadCache, saveCache } from "./cache/cache-file.js";
import { loadConfig } from "./config/config-file.js";
import { type RunFlags, type RunSettings, resolveRunSettings } from "./config/run-settings.js";
import { createProvider } from "./providers/provider-factory.js";
import { claimReportDir } from "./report/artifact-files.js";
import { reportersFor } from "./report/reporters.js";
import type { RunReport } from "./report/run-result.js";
import { type RunDependencies, runSuite, type TraceContextSource } from "./run-suite.js";
import { discoverSpecs } from "./spec/spec-discovery.js";
import { type LoadedSpec, loadSpec } from "./spec/spec-loading.js";
import type { AllowedHost } from "./telemetry/propagation-allowlist.js";

export async function loadSpecs(patterns: string[], cwd: string): Promise<LoadedSpec[]> {
  const { files } = discoverSpecs(patterns, cwd);
  if (files.length === 0) {
    throw new LifecycleError(
      "invalid_argument",
      `no spec files match ${patterns.map((pattern) => JSON.stringify(pattern)).join(", ")} (spec files end in .obs.ts or .agent.ts)`,
    );
  }
  return loadFiles(files);
}

/** A configured runner: settings resolved and checked, ready to run any of its spec files. */
export interface CheckRunner {
  settings: RunSettings;
  /** The config file in use, if any (obs watch re-reads it when it changes). */
  configPath: string | null;
  /** Runs the given spec files, or every file the patterns match. */
  run(files?: string[]): Promise<RunReport>;
}

export interface PrepareOptions {
  /**
   * Told of every browser session the run starts (as its start begins) and closes, so that
   * obs watch can close them all on Ctrl+C, even one still starting.
   */
  sessions?: { began(session: Promise<BrowserSession>): void; ended(session: Promise<BrowserSession>): void };
}

/** Everything is checked before a browser starts: config, engine, provider, display. */
export async function prepareChecks(
  flags: RunFlags,
  configPath: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  options: PrepareOptions = {},
): Promise<CheckRunner> {
  const loaded = await loadConfig(configPath, cwd);
  const settings = resolveRunSettings(flags, loaded.config, loaded.dir, env, cwd);
  claimReportDir(settings.reportDir);
  const provider = createProvider(settings.provider);
  if (settings.headed && settings.containerized) {
    throw new LifecycleError("invalid_argument", "--headed cannot show a containerized browser; drop one of them");
  }
  if (settings.headed && process.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    throw new LifecycleError(
      "invalid_argument",
      "--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set; run without --headed, or under xvfb-run",
    );
  }
  const { launch, urlForBrowser } = settings.containerized
    ? await containerLaunch(settings.engine, env)
    : { launch: locateEngine(settings.engine, env, settings.headed), urlForBrowser: undefined };
  const hooks = options.sessions;
  const tracked = (sessionOptions: Parameters<RunDependencies["startBrowser"]>[0]): Promise<BrowserSession> => {
    const starting: Promise<BrowserSession> = startBrowser({ ...sessionOptions, launch, urlForBrowser }).then(
      (session) =>
        hooks
          ? {
              ...session,
              close: async () => {
                await session.close();
                hooks.ended(starting);
              },
            }
          : session,
    );
    hooks?.began(starting);
    return starting;
  };
  return {
    settings,
    configPath: loaded.path,
    run: async (files) => {
      const specs = files ? await loadFiles(files) : await loadSpecs(settings.patterns, settings.patternsDir);
      try {
        checkJournal(loaded.dir);
      } catch (error) {
        throw new LifecycleError("invalid_config", `the skills journal: ${(error as Error).message}`);
      }
      const cache = loadCache(settings.reportDir, settings.cache, (line) => process.stderr.write(`${line}\n`));
      const reporters = reportersFor(settings);
      let propagation: TraceContextSource | undefined;
      if (settings.telemetry) {
        // The OpenTelemetry SDK is loaded only when telemetry is exported.
        const { TelemetryReporter } = await import("./telemetry/telemetry-reporter.js");
        const telemetry = new TelemetryReporter(settings.telemetry, (line) => process.stderr.write(`${line}\n`));
        reporters.push(telemetry);
        const { propagateTo } = settings.telemetry;
        if (propagateTo) propagation = traceContextSource(propagateTo, telemetry, settings.engine, urlForBrowser);
      }
      const report = await runSuite(specs, settings, {
        provider,
        startBrowser: tracked,
        reporters,
        skills: loadCatalog(loaded.dir).skills,
        recordLessons: (entries) => appendJournal(loaded.dir, entries),
        cache,
        propagation,
      });
      saveCache(settings.reportDir, cache);
      return report;
    },
  };
}

/** Each test's trace context for the allowed hosts; a browser that cannot carry it is named once. */
function traceContextSource(
  hosts: AllowedHost[],
  telemetry: { traceHeaders(testId: string): Record<string, string> },
  engine: RunSettings["engine"],
  urlForBrowser: ((url: string) => string) | undefined,
): TraceContextSource {
  let told = false;
  return {
    // A containerized browser reaches this machine's loopback by another name; allow that name.
    hosts: urlForBrowser
      ? hosts.map((host) => ({ ...host, hostname: new URL(urlForBrowser(`http://${host.hostname}/`)).hostname }))
      : hosts,
    headersFor: (testId) => telemetry.traceHeaders(testId),
    unavailable: (reason) => {
      if (told) return;
      told = true;
      const why = reason
        ? `${engine}'s browser refused request interception (${reason})`
        : `${engine}'s browser session has no WebDriver BiDi`;
      process.stderr.write(
        `obs: --otel-propagate: ${why}, so no request carries trace context (engine_a and engine_b have it)\n`,
      );
    },
  };
}

/** The warm container of the engine (started when it is not running) and how its browser reaches this machine. */
async function containerLaunch(
  engine: RunSettings["engine"],
  env: NodeJS.ProcessEnv,
): Promise<{ launch: EngineLaunch; urlForBrowser: (url: string) => string }> {
  const { containerImage, containerPlan, urlFromContainer } = await import("./browser/container-plan.js");
  const { ensureWarmContainer } = await import("./browser/browser-container.js");
  const plan = containerPlan(engine, containerImage(engine, env));
  const warm = await ensureWarmContainer(plan);
  if (warm.started)
    process.stderr.write(`obs: started the ${plan.name} container (${plan.image}); it stays warm for the next run\n`);
  return {
    launch: { engine, webdriverUrl: warm.webdriverUrl, browserName: plan.browserName },
    urlForBrowser: urlFromContainer,
  };
}

async function loadFiles(files: string[]): Promise<LoadedSpec[]> {
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
  const report = await (await prepareChecks(flags, configPath, env, cwd)).run();
  return report.totals.failed > 0 ? ExitCode.failed : ExitCode.ok;
}
