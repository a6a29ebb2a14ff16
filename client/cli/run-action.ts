import { emitError } from "../render/output.js";

/** Runs a command's action, turning its failures into the error output and exit code. */
export async function runAction(json: boolean, command: string, action: () => Promise<number>): Promise<number> {
  try {
    return await action();
  } catch (error) {
    const { ArgumentError, LifecycleError } = await import("../lifecycle/lifecycle-error.js");
    if (error instanceof LifecycleError) {
      // An argument error names the --help to run, as those yargs finds do (usage-errors.ts).
      if (error instanceof ArgumentError) {
        const help = `obs ${command} --help`;
        if (json) return emitError(true, command, error.code, error.message, error.details ?? { help });
        return emitError(false, command, error.code, `${command}: ${error.message}; see ${help}`);
      }
      return emitError(json, command, error.code, error.message, error.details);
    }
    const { StateDirError } = await import("../../shared/state-dir.js");
    if (error instanceof StateDirError) return emitError(json, command, "invalid_config", error.message);
    if (process.env.OBS_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    return emitError(json, command, "internal", (error as Error).message);
  }
}
