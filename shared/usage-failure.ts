import type { Argv } from "yargs";
import { ExitCode } from "./exit-codes.js";

/** Thrown by argument checks (yargs `coerce`): reported like any other usage error, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** yargs `.fail()` handler: usage and the problem on stderr, exit 2 (invalid arguments). */
export function usageFailure(program: string) {
  return (message: string | null, error: Error | undefined, argv: Argv): void => {
    // yargs reports its own parse errors, and errors thrown by `coerce`, as YError.
    if (error && !(error instanceof UsageError) && error.name !== "YError") throw error;
    argv.showHelp((text) => process.stderr.write(`${text}\n`));
    process.stderr.write(`\n${program}: ${error?.message ?? message}\n`);
    process.exit(ExitCode.invalidArgument);
  };
}
