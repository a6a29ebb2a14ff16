import { ExitCode } from "./exit-codes.js";

/** Thrown by argument checks (yargs `coerce`): reported like any other usage error, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * yargs `.fail()` handler: the problem and the --help to run, in one line on stderr (the help
 * itself would bury it), exit 2 (invalid arguments).
 */
export function usageFailure(program: string) {
  return (message: string | null, error: Error | undefined): void => {
    // yargs reports its own parse errors, and errors thrown by `coerce`, as YError.
    if (error && !(error instanceof UsageError) && error.name !== "YError") throw error;
    const problem = (error?.message ?? message ?? "invalid arguments").replace(/\s*\n\s*/g, " ");
    process.stderr.write(`${program}: ${problem}; see ${program} --help\n`);
    process.exit(ExitCode.invalidArgument);
  };
}
