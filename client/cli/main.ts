/**
 * `obs`: the command-line client. Each command loads only the modules it needs, so commands
 * that shell prompts call stay quick to start.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { ExitCode } from "../../shared/exit-codes.js";
import { OBS_VERSION } from "../../shared/package-root.js";
import { usageFailure } from "../../shared/usage-failure.js";
import { aggregateCommands } from "./aggregate-commands.js";
import { listCommands } from "./list-commands.js";
import { monitorCommand } from "./monitor-command.js";
import { queryCommands } from "./query-commands.js";

export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const setExit = (code: number) => {
    exitCode = code;
  };
  // Bare `obs` is `obs monitor start`.
  const args = argv.length === 0 ? ["monitor", "start"] : argv;
  await yargs(args)
    .scriptName("obs")
    .usage("$0 <command> [options]\n\nLocal telemetry monitor. Bare `obs` is `obs monitor start`.")
    .command(monitorCommand(setExit))
    .command(queryCommands(setExit))
    .command(listCommands(setExit))
    .command(aggregateCommands(setExit))
    .demandCommand(1, "name a command; see obs --help")
    .version(OBS_VERSION)
    .strict()
    .fail(usageFailure("obs"))
    .parseAsync();
  return exitCode;
}

main(hideBin(process.argv)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`obs: ${process.env.OBS_DEBUG ? error.stack : error.message}\n`);
    process.exit(ExitCode.storeFailure);
  },
);
