import type { CommandModule } from "yargs";
import { exitCodeOf } from "../../shared/cli-envelope.js";
import { ExitCode } from "../../shared/exit-codes.js";
import { portNumber } from "./query-support.js";

type SetExit = (code: number) => void;

/** `obs setup agentcli`: wires the coding agent's telemetry to a local collector. */
export function setupCommand(setExit: SetExit): CommandModule {
  return {
    command: "setup <agent>",
    describe: "Configure a coding agent to send its telemetry to a local collector",
    builder: (argv) =>
      argv
        .command({
          command: "agentcli",
          describe:
            "Enable agentcli's OpenTelemetry settings (~/.agentcli/settings.json, comments kept) and start or reuse a collector",
          builder: (setup) =>
            setup
              .option("port", {
                alias: ["monitor-port", "p"],
                type: "string",
                coerce: portNumber,
                describe:
                  "Use exactly this collector port (default: 27686, or the next free port when another program holds it)",
              })
              .option("db", { type: "string", describe: "Store file of a collector this setup starts" })
              .option("project-store", {
                type: "boolean",
                describe:
                  "A collector this setup starts keeps its store under the state folder, in a folder named after this project folder (env OBS_PROJECT_STORE=1)",
              })
              .option("protocol", {
                type: "string",
                choices: ["grpc", "http"],
                describe:
                  "Pin the agent's OTLP protocol (telemetry.otlpProtocol, and OTEL_EXPORTER_OTLP_PROTOCOL when obs agentcli launches it); without it the agent keeps its own default, as the collector's port takes gRPC and HTTP alike",
              })
              .option("json", { type: "boolean", default: false, describe: "Write one obs.setup/v1 JSON document" }),
          handler: async (flags) => {
            const json = Boolean(flags.json);
            const { setupAgentcli } = await import("../setup/setup-agentcli.js");
            const { setupDocument, setupErrorDocument, setupSummary } = await import("../setup/setup-document.js");
            const { LifecycleError } = await import("../lifecycle/lifecycle-error.js");
            try {
              const result = await setupAgentcli(
                {
                  port: flags.port as number | undefined,
                  db: typeof flags.db === "string" ? flags.db : undefined,
                  // --no-project-store turns off OBS_PROJECT_STORE, as for obs monitor start.
                  projectStore: typeof flags.projectStore === "boolean" ? flags.projectStore : undefined,
                },
                process.env,
                flags.protocol === "grpc" || flags.protocol === "http" ? flags.protocol : undefined,
              );
              for (const warning of result.warnings) process.stderr.write(`obs: warning: ${warning}\n`);
              process.stdout.write(
                json ? `${JSON.stringify(setupDocument(result), null, 2)}\n` : `${setupSummary(result)}\n`,
              );
              setExit(ExitCode.ok);
            } catch (error) {
              const { StateDirError } = await import("../../shared/state-dir.js");
              const known = error instanceof LifecycleError;
              if (!known && process.env.OBS_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
              // A state folder obs may not use is a configuration to fix (exit 2), as in every command.
              const code = known ? error.code : error instanceof StateDirError ? "invalid_config" : "internal";
              const message = (error as Error).message;
              if (json) {
                const details = known ? error.details : undefined;
                process.stdout.write(`${JSON.stringify(setupErrorDocument(code, message, details), null, 2)}\n`);
              } else process.stderr.write(`obs: ${message}\n`);
              setExit(exitCodeOf(code));
            }
          },
        })
        .demandCommand(1, "name the agent to set up: agentcli"),
    handler: () => {
      setExit(ExitCode.ok);
    },
  };
}
