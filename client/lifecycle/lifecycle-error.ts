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
