import type { CommandModule } from "yargs";
import { collectorFlags } from "../../daemon/collector-flags.js";

/** `obs monitor start`: runs the collector in the foreground until Ctrl+C. */
export function monitorCommand(setExit: (code: number) => void): CommandModule {
  return {
    command: "monitor <action>",
    describe: "Run the collector",
    builder: (argv) =>
      argv.command({
        command: "start",
        describe: "Run the collector in the foreground until Ctrl+C",
        builder: (start) => collectorFlags(start),
        handler: async (flags) => {
          // Loaded here so other commands never pay for express, SQLite or the workers.
          const { runForeground } = await import("../../daemon/run-foreground.js");
          setExit(
            await runForeground({
              host: flags.host as string | undefined,
              port: flags.port as string | undefined,
              db: flags.db as string | undefined,
              retention: flags.retention as string | undefined,
              maxDbSize: flags.maxDbSize as string | undefined,
              maxBodySize: flags.maxBodySize as string | undefined,
            }),
          );
        },
      }),
    handler: () => {},
  };
}
