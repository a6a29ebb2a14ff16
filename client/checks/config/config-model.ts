/** `obs.config.ts`: the project's browser-check settings. `schemas/checks/config.json` describes it. */

export const ENGINES = ["engine_a", "engine_b", "engine_c", "engine_d"] as const;
export type Engine = (typeof ENGINES)[number];

export const REPORTERS = ["basic", "json", "junit", "html", "all"] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** The action cache: replay and record, replay only (CI), or neither. */
export const CACHE_MODES = ["read-write", "read-only", "off"] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export const PROVIDERS = ["openai", "anthropic", "mock"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ObsConfig {
  /** Spec patterns used when the command names none. Default `**\/*.obs.ts`, `**\/*.obs.tsx`. */
  testMatch?: string[];
  /** Resolves relative `agent.goto()` URLs. */
  baseUrl?: string;
  browser?: Engine;
  headed?: boolean;
  /** `WIDTHxHEIGHT`, e.g. `1280x800`. */
  viewport?: string;
  provider?: ProviderName;
  model?: string;
  /** The `mock` provider's transcript, relative to the config file. */
  mockTranscript?: string;
  /** Hard cap on agent tool steps per test. */
  maxSteps?: number;
  /** Per-test timeout in milliseconds (default 120000). */
  timeout?: number;
  /** Report directory, relative to the config file (default `.obs`). */
  reportDir?: string;
  reporter?: ReporterName;
  captureScreenshots?: boolean;
  workers?: number;
  /** Reruns of a failed test (default 0); a test that passes on one is reported flaky. */
  retries?: number;
  /** Fail a test when its page logged console errors, threw, or had a request fail (default false). */
  failOnPageErrors?: boolean;
  /** Send the model a screenshot with each page snapshot (default false). */
  vision?: boolean;
}
