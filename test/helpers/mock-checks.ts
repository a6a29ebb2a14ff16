/** Running browser checks from tests: a user with no model configured, and the mock provider's arguments. */

/** The environment of a user with no model configured: every run names its provider itself. */
export const CLEAN_ENV: NodeJS.ProcessEnv = {
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  OPENAI_BASE_URL: "",
  OBS_PROVIDER: "",
  OBS_MODEL: "",
  OBS_BASE_URL: "",
  OBS_MOCK_TRANSCRIPT: "",
  OBS_CHROMIUM_PATH: "",
  OBS_CHROMEDRIVER_PATH: "",
  OBS_CACHE: "",
};

/** `obs <command> <specs>` against the site at `baseUrl`, with the mock provider replaying `transcript`. */
export function mockArgs(
  baseUrl: string,
  command: string,
  specs: string[],
  extra: string[] = [],
  transcript = "transcript.json",
): string[] {
  return [command, ...specs, "--base-url", baseUrl, "--provider", "mock", "--mock-transcript", transcript, ...extra];
}
