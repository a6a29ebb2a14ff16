import type { Argv, CommandModule } from "yargs";
import { collectorFlags, settingFlagsOf } from "../../shared/collector-flags.js";
import { ExitCode } from "../../shared/exit-codes.js";
import type { TargetFlags } from "../discovery/explicit-target.js";
import { emitError, emitSuccess } from "../render/output.js";
import { describeCollector } from "./monitor-status.js";
import { collectorBaseUrl, oneCollectorAddress, portNumber } from "./query-support.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;

/** The collector named on the command line; OBS_MONITOR_URL is read by targetCollector. */
function addressOf(flags: Record<string, unknown>): TargetFlags {
  return {
    ...(typeof flags.baseUrl === "string" ? { baseUrl: flags.baseUrl } : {}),
    ...(typeof flags.host === "string" ? { host: flags.host } : {}),
    ...(flags.port !== undefined ? { port: Number(flags.port) } : {}),
  };
}

const selectFlags = <T>(argv: Argv<T>) =>
  argv
    .option("base-url", {
      type: "string",
      coerce: collectorBaseUrl,
      describe: "Act on the collector at this URL, used exactly (also OBS_MONITOR_URL)",
    })
    .option("host", {
      alias: "monitor-host",
      type: "string",
      describe: "Act on the collector bound to this host, used exactly",
    })
    .option("port", {
      alias: ["monitor-port", "p"],
      type: "string",
      coerce: portNumber,
      describe: "Act on the collector on this port, used exactly",
    })
    .option("json", { type: "boolean", default: false, describe: "Write one obs.cli/v1 JSON document" })
    .check(oneCollectorAddress);

/** `obs monitor start|stop|status`. Each action loads only what it needs. */
export function monitorCommand(setExit: SetExit): CommandModule {
  return {
    command: "monitor <action>",
    describe: "Start, stop and inspect collectors",
    builder: (argv) =>
      argv
        .command({
          command: "start",
          describe: "Run a collector: in the foreground until Ctrl+C, or in the background with --detach",
          builder: (start) =>
            collectorFlags(start)
              .option("detach", {
                type: "boolean",
                default: false,
                describe: "Start in the background, or adopt the collector already running there",
              })
              .option("json", {
                type: "boolean",
                default: false,
                describe: "With --detach: write one obs.cli/v1 JSON document",
              }),
          handler: async (flags) => {
            if (!flags.detach) {
              if (flags.json) {
                setExit(
                  emitError(
                    false,
                    "monitor start",
                    "invalid_argument",
                    "--json needs --detach: a foreground collector prints its log, not a document",
                  ),
                );
                return;
              }
              const { runForeground } = await import("../../daemon/run-foreground.js");
              setExit(
                await runForeground(settingFlagsOf(flags), {
                  // A port held is named as a detached start names it: exit 3, and the
                  // collector holding it, if one of this user's does.
                  onPortInUse: ({ host, port }) =>
                    runAction(false, "monitor start", async () => {
                      const { portHeldError } = await import("../lifecycle/port-holder.js");
                      throw await portHeldError(host, port);
                    }),
                }),
              );
              return;
            }
            const json = Boolean(flags.json);
            setExit(
              await runAction(json, "monitor start", async () => {
                const { startDetached } = await import("../lifecycle/detached-start.js");
                const { warnings, ...result } = await startDetached(settingFlagsOf(flags));
                for (const warning of warnings) process.stderr.write(`obs: warning: ${warning}\n`);
                const verb = result.started ? "started" : "already running (adopted)";
                return emitSuccess(
                  json,
                  "monitor start",
                  result,
                  `collector ${verb}: ${describeCollector(result.collector)}${result.logPath ? `\n  log ${result.logPath}` : ""}`,
                  null,
                  warnings,
                );
              }),
            );
          },
        })
        .command({
          command: "stop",
          describe: "Stop a background collector through its control socket",
          builder: selectFlags,
          handler: async (flags) => {
            const json = Boolean(flags.json);
            setExit(
              await runAction(json, "monitor stop", async () => {
                const { targetCollector } = await import("../lifecycle/target-collector.js");
                const { stopCollector } = await import("../lifecycle/stop-collector.js");
                // A collector whose control socket is gone can still be stopped (stop-collector.ts).
                const collector = await targetCollector(process.cwd(), addressOf(flags), process.env, {
                  acceptWithoutSocket: true,
                });
                await stopCollector(collector);
                return emitSuccess(
                  json,
                  "monitor stop",
                  { stopped: true, collector },
                  `collector stopped: ${describeCollector(collector)}`,
                );
              }),
            );
          },
        })
        .command({
          command: "status",
          describe: "Show the collector this folder uses: identity, address, database, CPU and memory",
          builder: selectFlags,
          handler: async (flags) => {
            const { monitorStatus } = await import("./monitor-status.js");
            setExit(await monitorStatus(Boolean(flags.json), addressOf(flags)));
          },
        })
        .demandCommand(1, "name an action: start, stop or status"),
    handler: () => {
      setExit(ExitCode.ok);
    },
  };
}
