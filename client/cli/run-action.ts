import { emitError } from "../render/output.js";

/** Runs a command's action, turning its failures into the error output and exit code. */
export async function runAction(json: boolean, command: string, action: () => Promise<number>): Promise<number> {
  try {
    return await action();
  } catch (error) {
    const { LifecycleError } = await import("../lifecycle/lifecycle-error.js");
    if (error instanceof LifecycleError) return emitError(json, command, error.code, error.message, error.details);
    if (process.env.OBS_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    return emitError(json, command, "internal", (error as Error).message);
  }
}
