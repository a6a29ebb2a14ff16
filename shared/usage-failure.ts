import type { Argv } from "yargs";
import { ExitCode } from "./exit-codes.js";

/** yargs `.fail()` handler: usage and the problem on stderr, exit 2 (invalid arguments). */
export function usageFailure(program: string) {
  return (message: string | null, error: Error | undefined, argv: Argv): void => {
    if (error) throw error;
    argv.showHelp((text) => process.stderr.write(`${text}\n`));
    process.stderr.write(`\n${program}: ${message}\n`);
    process.exit(ExitCode.invalidArgument);
  };
}
