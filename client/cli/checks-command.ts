/**
 * Browser checks: `obs test`, `obs run`, `obs watch`, `obs list`, `obs init`. The runner, webdriverio and
 * the TypeScript loader are imported only when one of these runs.
 */
import type { Argv, CommandModule } from "yargs";
import { ExitCode } from "../../shared/exit-codes.js";
import { CACHE_MODES, ENGINES, REPORTERS } from "../checks/config/config-model.js";
import type { RunFlags } from "../checks/config/run-settings.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;

const configFlag = <T>(argv: Argv<T>) =>
  argv
    .positional("patterns", {
      type: "string",
      array: true,
      describe: "Spec files, directories or globs (default **/*.obs.ts and **/*.obs.tsx)",
    })
    .option("config", { alias: "c", type: "string", describe: "Config file (default: obs.config.ts found upward)" });

const runFlags = <T>(argv: Argv<T>) =>
  configFlag(argv)
    .option("report-dir", { type: "string", describe: "Where reports and screenshots go (default .obs)" })
    .option("base-url", {
      alias: "u",
      type: "string",
      describe: "Base for relative agent.goto() URLs (also OBS_BASE_URL)",
    })
    .option("browser", {
      type: "string",
      choices: [...ENGINES],
      describe:
        "Browser engine: engine_a Chromium (default), engine_b Firefox, engine_c WebKitGTK, engine_d experimental",
    })
    .option("headed", { type: "boolean", describe: "Show the browser window" })
    .option("viewport", { type: "string", describe: "Window size WIDTHxHEIGHT, e.g. 1280x800" })
    .option("containerized", {
      type: "boolean",
      default: false,
      describe: "Run the browser in a warm container with the docker CLI (engine_a, engine_d)",
    })
    .option("provider", { type: "string", describe: "Model provider: openai, anthropic or mock (also OBS_PROVIDER)" })
    .option("model", { type: "string", describe: "Model name (also OBS_MODEL)" })
    .option("api-key", {
      type: "string",
      describe: "Provider API key; prefer OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment",
    })
    .option("mock-transcript", {
      type: "string",
      describe: "Transcript the mock provider replays (also OBS_MOCK_TRANSCRIPT)",
    })
    .option("max-steps", { type: "number", describe: "Hard cap on agent tool steps per test (default unlimited)" })
    .option("workers", { type: "number", describe: "Tests run at once, each in its own browser (default 1)" })
    .option("retries", {
      type: "number",
      describe: "Rerun a failed test up to N times; one that passes on a retry is reported flaky (default 0)",
    })
    .option("fail-on-page-errors", {
      type: "boolean",
      describe: "Fail a test whose page logged a console error, threw, or had a request fail",
    })
    .option("vision", {
      type: "boolean",
      describe: "Send the model a screenshot with each page snapshot (the text snapshot is always sent)",
    })
    .option("reporter", {
      alias: "r",
      type: "string",
      choices: [...REPORTERS],
      describe: "Reports to write (default all)",
    })
    .option("verbose", { alias: "v", type: "boolean", default: false, describe: "Stream agent events to stderr" })
    .option("progress-file", { type: "string", describe: "Append NDJSON progress lines to this file" })
    .option("capture-screenshots", {
      type: "boolean",
      describe: "Screenshot after each browser action and stream live frames (report-dir/frames)",
    })
    .option("stream", {
      type: "boolean",
      default: true,
      describe: "Live frames from the browser's screencast; --no-stream uses the per-action screenshots as frames",
    })
    .option("cache", {
      type: "string",
      choices: [...CACHE_MODES],
      describe:
        "Action cache in report-dir/action-cache.json: replay a passing run's actions without the model (default read-write; read-only for CI; also OBS_CACHE)",
    })
    .option("otel-endpoint", {
      type: "string",
      describe: "OTLP/HTTP base URL: export the run's traces, metrics and logs there (none without it)",
    })
    .option("otel-service-name", {
      type: "string",
      describe: "service.name of the runner's telemetry (default obs-runner)",
    })
    .option("otel-environment", { type: "string", describe: "deployment.environment.name of the runner's telemetry" })
    .option("otel-propagate", {
      type: "boolean",
      describe:
        "Send W3C traceparent to the app under test, so its spans join the test's trace (needs --otel-endpoint and --otel-propagate-allowlist)",
    })
    .option("otel-propagate-allowlist", {
      type: "string",
      describe: "Comma-separated hosts (host or host:port) allowed to receive trace context; no others ever do",
    })
    .option("frame-interval", {
      type: "number",
      default: 200,
      describe: "Minimum milliseconds between frames (and frame progress lines)",
    });

function runFlagsOf(flags: Record<string, unknown>): RunFlags {
  const pick = <T>(key: string) => flags[key] as T | undefined;
  return {
    patterns: (pick<string[]>("patterns") ?? []).map(String),
    reportDir: pick("reportDir"),
    baseUrl: pick("baseUrl"),
    browser: pick("browser"),
    headed: pick("headed"),
    viewport: pick("viewport"),
    containerized: pick("containerized"),
    provider: pick("provider"),
    model: pick("model"),
    apiKey: pick("apiKey"),
    mockTranscript: pick("mockTranscript"),
    maxSteps: pick("maxSteps"),
    workers: pick("workers"),
    retries: pick("retries"),
    failOnPageErrors: pick("failOnPageErrors"),
    vision: pick("vision"),
    reporter: pick("reporter"),
    verbose: pick("verbose"),
    progressFile: pick("progressFile"),
    captureScreenshots: pick("captureScreenshots"),
    stream: pick("stream"),
    cache: pick("cache"),
    otelEndpoint: pick("otelEndpoint"),
    otelServiceName: pick("otelServiceName"),
    otelEnvironment: pick("otelEnvironment"),
    otelPropagate: pick("otelPropagate"),
    otelPropagateAllowlist: pick("otelPropagateAllowlist"),
    frameInterval: pick("frameInterval"),
  };
}

function runCommand(name: "test" | "run", setExit: SetExit): CommandModule {
  return {
    command: `${name} [patterns..]`,
    describe:
      name === "test"
        ? "Run browser checks with the agent; write reports; exit 1 when a test fails"
        : "Same as obs test",
    builder: runFlags,
    handler: async (flags) => {
      setExit(
        await runAction(false, name, async () => {
          const { runChecks } = await import("../checks/run-checks.js");
          const { stopBrowsersOnSignal } = await import("../checks/browser/interrupt-stop.js");
          const release = stopBrowsersOnSignal(
            (line) => process.stderr.write(`${line}\n`),
            (code) => process.exit(code),
          );
          try {
            return await runChecks(runFlagsOf(flags), flags.config as string | undefined, process.env, process.cwd());
          } finally {
            release();
          }
        }),
      );
    },
  };
}

export function checksCommands(setExit: SetExit): CommandModule[] {
  return [
    runCommand("test", setExit),
    runCommand("run", setExit),
    {
      command: "watch [patterns..]",
      describe:
        "Run the browser checks, then re-run the spec files that change (all when the config does); Ctrl+C stops",
      builder: runFlags,
      handler: async (flags) => {
        setExit(
          await runAction(false, "watch", async () => {
            const { watchChecks } = await import("../checks/watch/watch-checks.js");
            const stop = new AbortController();
            process.once("SIGINT", () => stop.abort());
            process.once("SIGTERM", () => stop.abort());
            return watchChecks(runFlagsOf(flags), flags.config as string | undefined, process.env, process.cwd(), {
              say: (line) => process.stderr.write(`${line}\n`),
              stop: stop.signal,
            });
          }),
        );
      },
    },
    {
      command: "list [patterns..]",
      describe: "Load the specs and print their test names; no browser starts",
      builder: configFlag,
      handler: async (flags) => {
        setExit(
          await runAction(false, "list", async () => {
            const { listChecks } = await import("../checks/list-checks.js");
            return listChecks(runFlagsOf(flags), flags.config as string | undefined, process.env, process.cwd());
          }),
        );
      },
    },
    {
      command: "init [path]",
      describe: "Write a starter spec at tests/homepage.obs.ts (or PATH); never overwrites",
      builder: (argv) => argv.positional("path", { type: "string", describe: "Where to write the spec" }),
      handler: async (flags) => {
        setExit(
          await runAction(false, "init", async () => {
            const { initSpec } = await import("../checks/init-spec.js");
            const written = initSpec(process.cwd(), flags.path as string | undefined);
            process.stdout.write(
              `wrote ${written}\nrun it with: obs test ${written} --base-url http://localhost:3000\n`,
            );
            return ExitCode.ok;
          }),
        );
      },
    },
  ];
}
