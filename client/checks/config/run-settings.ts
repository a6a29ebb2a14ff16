/**
 * The settings of one browser-check run, from command-line flags, then environment variables,
 * then `obs.config.ts`, then defaults (the same order as the collector's settings, with the
 * project config as the layer above defaults). API keys come only from flags or the
 * environment, never from the config file. Pure: everything it reads is passed in.
 */
import { isAbsolute, resolve } from "node:path";
import { hideUrlPasswords } from "../../../shared/url-passwords.js";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { type AllowedHost, parseAllowlist } from "../telemetry/propagation-allowlist.js";
import {
  CACHE_MODES,
  type CacheMode,
  ENGINES,
  type Engine,
  type ObsConfig,
  PROVIDERS,
  type ProviderName,
  REPORTERS,
  type ReporterName,
} from "./config-model.js";

export const DEFAULT_PATTERNS = ["**/*.obs.ts", "**/*.obs.tsx"];
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  mock: "mock",
};

export interface RunFlags {
  patterns?: string[];
  reportDir?: string;
  baseUrl?: string;
  browser?: string;
  headed?: boolean;
  viewport?: string;
  containerized?: boolean;
  provider?: string;
  model?: string;
  apiKey?: string;
  mockTranscript?: string;
  maxSteps?: number;
  workers?: number;
  retries?: number;
  failOnPageErrors?: boolean;
  vision?: boolean;
  reporter?: string;
  verbose?: boolean;
  progressFile?: string;
  captureScreenshots?: boolean;
  stream?: boolean;
  frameInterval?: number;
  cache?: string;
  otelEndpoint?: string;
  otelServiceName?: string;
  otelEnvironment?: string;
  otelPropagate?: boolean;
  otelPropagateAllowlist?: string;
}

export interface ProviderSettings {
  name: ProviderName;
  model: string;
  apiKey: string | null;
  /** OpenAI-compatible or Anthropic endpoint; null for the provider's public one. */
  baseUrl: string | null;
  /** The mock provider's transcript file. */
  transcriptPath: string | null;
}

export interface RunSettings {
  cwd: string;
  patterns: string[];
  /** The folder the patterns are read from: the working folder for patterns given as arguments, the config's for testMatch. */
  patternsDir: string;
  reportDir: string;
  baseUrl: string | null;
  engine: Engine;
  /** Run the browser in a warm container (--containerized). */
  containerized: boolean;
  headed: boolean;
  viewport: { width: number; height: number } | null;
  provider: ProviderSettings;
  maxSteps: number | null;
  timeoutMs: number;
  workers: number;
  /** Reruns of a failed test; a test that passes on one is flaky. */
  retries: number;
  /** Page errors (console errors, uncaught exceptions, failed requests) fail the test. */
  failOnPageErrors: boolean;
  /** A screenshot goes to the model with each snapshot. */
  vision: boolean;
  reporters: Exclude<ReporterName, "all">[];
  verbose: boolean;
  progressFile: string | null;
  captureScreenshots: boolean;
  /** With captureScreenshots: frames come from the live screencast (true) or the per-action screenshots. */
  stream: boolean;
  frameIntervalMs: number;
  /** The action cache under the report directory: replay and record, replay only, or neither. */
  cache: CacheMode;
  /** Runner telemetry export; null without --otel-endpoint. */
  telemetry: {
    endpoint: string;
    serviceName: string;
    environment: string | null;
    /** --otel-propagate: the hosts that receive the test's trace context; null without it. */
    propagateTo: AllowedHost[] | null;
  } | null;
}

function usage(message: string): LifecycleError {
  return new LifecycleError("invalid_argument", message);
}

function firstOf<T>(...values: (T | undefined | null | "")[]): T | undefined {
  for (const value of values) if (value !== undefined && value !== null && value !== "") return value as T;
  return undefined;
}

export function parseViewport(text: string): { width: number; height: number } {
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(text.trim());
  if (!match) throw usage(`--viewport "${text}" is not WIDTHxHEIGHT, e.g. 1280x800`);
  return { width: Number(match[1]), height: Number(match[2]) };
}

function wholeNumber(value: unknown, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw usage(`${flag} must be a whole number, not "${value}"`);
  return number;
}

function positiveInteger(value: unknown, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw usage(`${flag} must be a whole number of at least 1, not "${value}"`);
  return number;
}

/**
 * --otel-propagate and its allowlist. Trace context only ever goes to hosts named in the
 * allowlist, so propagation without one (or an allowlist without propagation) is a mistake to
 * say, not a silent no-op.
 */
function resolvePropagation(
  flags: RunFlags,
  endpoint: string | undefined,
  baseUrl: string | null,
): AllowedHost[] | null {
  const listed = flags.otelPropagateAllowlist;
  if (!flags.otelPropagate) {
    if (listed) throw usage("--otel-propagate-allowlist has no effect without --otel-propagate");
    return null;
  }
  if (!endpoint) {
    throw usage("--otel-propagate needs --otel-endpoint: the trace context it sends is the run's own trace");
  }
  let hosts: AllowedHost[];
  try {
    hosts = parseAllowlist(listed ?? "");
  } catch (error) {
    throw usage((error as Error).message);
  }
  if (hosts.length === 0) {
    const example = baseUrl ? new URL(baseUrl).host : "localhost:3000";
    throw usage(
      `--otel-propagate sends trace context only to hosts in --otel-propagate-allowlist, and it names none; e.g. --otel-propagate-allowlist ${example}`,
    );
  }
  return hosts;
}

export function resolveProvider(
  flags: RunFlags,
  config: ObsConfig,
  configDir: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): ProviderSettings {
  const inferred = env.ANTHROPIC_API_KEY ? "anthropic" : env.OPENAI_API_KEY ? "openai" : undefined;
  const name = firstOf<string>(flags.provider, env.OBS_PROVIDER, config.provider, inferred);
  if (!name) {
    throw usage(
      "no model provider is configured: set OPENAI_API_KEY (OPENAI_BASE_URL for a local OpenAI-compatible server) or ANTHROPIC_API_KEY, or run with --provider mock --mock-transcript FILE",
    );
  }
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw usage(`unknown provider "${name}": use one of ${PROVIDERS.join(", ")}`);
  }
  const provider = name as ProviderName;
  const model = firstOf<string>(flags.model, env.OBS_MODEL, config.model) ?? DEFAULT_MODELS[provider];
  if (provider === "mock") {
    const fromFlag = firstOf<string>(flags.mockTranscript, env.OBS_MOCK_TRANSCRIPT);
    const transcript = fromFlag
      ? resolve(cwd, fromFlag)
      : config.mockTranscript
        ? resolve(configDir, config.mockTranscript)
        : null;
    if (!transcript) {
      throw usage(
        "the mock provider replays a transcript: give --mock-transcript FILE (or OBS_MOCK_TRANSCRIPT, or mockTranscript in obs.config.ts)",
      );
    }
    return { name: provider, model, apiKey: null, baseUrl: null, transcriptPath: transcript };
  }
  const keyVariable = provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  const baseVariable = provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
  const baseUrl = firstOf<string>(env[baseVariable]) ?? null;
  if (baseUrl !== null) {
    const parsed = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
    if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw usage(`${baseVariable} "${hideUrlPasswords(baseUrl)}" is not an http(s) URL`);
    }
    // fetch refuses a URL with credentials, and every error would repeat them into the reports.
    if (parsed.username !== "" || parsed.password !== "") {
      // A key is often given as the user name alone (https://sk-...@host): shown as *** too.
      const shown = new URL(parsed.href);
      shown.username = shown.username === "" ? "" : "***";
      shown.password = shown.password === "" ? "" : "***";
      throw usage(
        `${baseVariable} "${shown.href}" has a user name or password in it, which obs does not send; give the key in ${keyVariable} (or --api-key) and the endpoint without them`,
      );
    }
  }
  const apiKey = firstOf<string>(flags.apiKey, env[keyVariable]) ?? null;
  // A local OpenAI-compatible server (OPENAI_BASE_URL) often takes no key; the public APIs always do.
  if (!apiKey && !(provider === "openai" && baseUrl)) {
    throw usage(`the ${provider} provider needs an API key: set ${keyVariable} (preferred) or pass --api-key`);
  }
  return { name: provider, model, apiKey, baseUrl, transcriptPath: null };
}

/**
 * The spec patterns and the folder they are read from. Patterns given as arguments are the
 * shell's, read from the working folder; testMatch (or the default) belongs to the config and is
 * read from its folder, as reportDir is, so a run from a subfolder finds the same specs.
 */
export function specPatterns(
  flags: Pick<RunFlags, "patterns">,
  config: ObsConfig,
  configDir: string,
  cwd: string,
): { patterns: string[]; patternsDir: string } {
  if (flags.patterns?.length) return { patterns: flags.patterns, patternsDir: cwd };
  return { patterns: config.testMatch ?? DEFAULT_PATTERNS, patternsDir: configDir };
}

export function resolveRunSettings(
  flags: RunFlags,
  config: ObsConfig,
  configDir: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): RunSettings {
  const engine = firstOf<string>(flags.browser, env.OBS_BROWSER, config.browser) ?? "engine_a";
  if (!(ENGINES as readonly string[]).includes(engine)) {
    throw usage(`unknown browser "${engine}": use one of ${ENGINES.join(", ")}`);
  }
  const reporter = firstOf<string>(flags.reporter, config.reporter) ?? "all";
  if (!(REPORTERS as readonly string[]).includes(reporter)) {
    throw usage(`unknown reporter "${reporter}": use one of ${REPORTERS.join(", ")}`);
  }
  const viewportText = firstOf<string>(flags.viewport, config.viewport);
  const maxSteps = firstOf<number>(flags.maxSteps, config.maxSteps);
  const reportDir = flags.reportDir
    ? resolve(cwd, flags.reportDir)
    : config.reportDir
      ? resolve(configDir, config.reportDir)
      : resolve(cwd, ".obs");
  const baseUrl = firstOf<string>(flags.baseUrl, env.OBS_BASE_URL, config.baseUrl) ?? null;
  if (baseUrl !== null && !URL.canParse(baseUrl)) throw usage(`--base-url "${hideUrlPasswords(baseUrl)}" is not a URL`);
  const frameInterval = flags.frameInterval ?? 200;
  if (!Number.isInteger(frameInterval) || frameInterval < 0) {
    throw usage(`--frame-interval must be a whole number of milliseconds, not "${flags.frameInterval}"`);
  }
  const cache = firstOf<string>(flags.cache, env.OBS_CACHE) ?? "read-write";
  if (!(CACHE_MODES as readonly string[]).includes(cache)) {
    throw usage(`unknown cache mode "${cache}": use one of ${CACHE_MODES.join(", ")}`);
  }
  const endpoint = firstOf<string>(flags.otelEndpoint);
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) {
    throw usage(`--otel-endpoint "${hideUrlPasswords(endpoint)}" is not an http(s) URL, e.g. http://127.0.0.1:27686`);
  }
  const propagateTo = resolvePropagation(flags, endpoint, baseUrl);
  return {
    cwd,
    ...specPatterns(flags, config, configDir, cwd),
    reportDir,
    baseUrl,
    engine: engine as Engine,
    containerized: flags.containerized ?? false,
    headed: flags.headed ?? config.headed ?? false,
    viewport: viewportText ? parseViewport(viewportText) : null,
    provider: resolveProvider(flags, config, configDir, env, cwd),
    maxSteps: maxSteps === undefined ? null : positiveInteger(maxSteps, "--max-steps"),
    timeoutMs: config.timeout ?? DEFAULT_TIMEOUT_MS,
    workers: positiveInteger(firstOf<number>(flags.workers, config.workers) ?? 1, "--workers"),
    retries: wholeNumber(firstOf<number>(flags.retries, config.retries) ?? 0, "--retries"),
    failOnPageErrors: flags.failOnPageErrors ?? config.failOnPageErrors ?? false,
    vision: flags.vision ?? config.vision ?? false,
    reporters: reporter === "all" ? ["basic", "json", "junit", "html"] : [reporter as Exclude<ReporterName, "all">],
    verbose: flags.verbose ?? false,
    progressFile: flags.progressFile
      ? isAbsolute(flags.progressFile)
        ? flags.progressFile
        : resolve(cwd, flags.progressFile)
      : null,
    captureScreenshots: flags.captureScreenshots ?? config.captureScreenshots ?? false,
    stream: flags.stream ?? true,
    frameIntervalMs: frameInterval,
    cache: cache as CacheMode,
    telemetry: endpoint
      ? {
          endpoint,
          serviceName: firstOf<string>(flags.otelServiceName) ?? "obs-runner",
          environment: firstOf<string>(flags.otelEnvironment) ?? null,
          propagateTo,
        }
      : null,
  };
}
