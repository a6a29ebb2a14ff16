import type { ErrorCode } from "../../shared/cli-envelope.js";

/** A lifecycle command that cannot do what was asked; `code` decides the exit status. */
export class LifecycleError extends Error {
  override name = "LifecycleError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * A command's argument that is wrong (a bad --since, a flag --describe takes no use of, a
 * query the collector refuses with 400): exit 2, and the human message names the command's
 * --help, as the argument errors yargs finds do. Not for a missing program or a file in the
 * way, whose fix --help does not hold.
 */
export class ArgumentError extends LifecycleError {
  override name = "ArgumentError";
  constructor(message: string, details?: unknown) {
    super("invalid_argument", message, details);
  }
}
