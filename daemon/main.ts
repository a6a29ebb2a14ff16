/** `obsd`: the collector process. Parses its flags and runs in the foreground. */
import { collectorFlags, joinDashValues, settingFlagsOf } from "../shared/collector-flags.js";
import { parseDuration } from "../shared/duration.js";
import { ExitCode } from "../shared/exit-codes.js";
import { OBS_VERSION } from "../shared/package-root.js";
import { usageFailure } from "../shared/usage-failure.js";
import { commandLineArguments, yargs } from "../shared/yargs-loader.js";
import { runForeground } from "./run-foreground.js";

export async function main(argv: string[]): Promise<number> {
  const parsed = await collectorFlags(yargs(joinDashValues(argv, ["retention-interval", "control-socket-check"])))
    .scriptName("obsd")
    .usage(
      "$0 [options]\n\nRuns the obs collector in the foreground: OTLP traces, metrics and logs in over HTTP and gRPC on one port, SQLite store, JSON queries out.",
    )
    .option("retention-interval", {
      type: "string",
      hidden: true,
      describe: "How often age-based retention runs (tests shorten it)",
    })
    .option("control-socket-check", {
      type: "string",
      hidden: true,
      describe: "How often the control socket is looked for, and made again when removed (tests change it)",
    })
    .version(OBS_VERSION)
    .strict()
    .fail(usageFailure("obsd"))
    .parseAsync();
  const interval = parsed.retentionInterval;
  const socketCheck = parsed.controlSocketCheck;
  return runForeground(settingFlagsOf(parsed), {
    ...(interval ? { retentionIntervalMs: parseDuration(interval) } : {}),
    ...(socketCheck ? { controlSocketCheckMs: parseDuration(socketCheck) } : {}),
  });
}

main(commandLineArguments()).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`obsd: ${process.env.OBS_DEBUG ? error.stack : error.message}\n`);
    process.exit(ExitCode.storeFailure);
  },
);
