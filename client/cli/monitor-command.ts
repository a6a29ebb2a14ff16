import type { CommandModule } from "yargs";
import { collectorFlags, settingFlagsOf } from "../../shared/collector-flags.js";

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
          setExit(await runForeground(settingFlagsOf(flags)));
        },
      }),
    handler: () => {},
  };
}
