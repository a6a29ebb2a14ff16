/**
 * A command run from a folder that was removed after the shell went into it (`mkdir g; cd g;
 * rmdir ../g; obs status`): nothing can be resolved against it, and the parser itself asks for
 * it as it loads. entry.ts finds this before anything else, and it is reported as a
 * configuration error.
 */
import { exitCodeOf } from "../../shared/cli-envelope.js";
import { emitError } from "../render/output.js";
import { setupErrorDocument } from "../setup/setup-document.js";
import { COMMAND_GROUPS, wantsJson } from "./usage-errors.js";

/** What to tell the user when `process.cwd()` failed with `error`. */
export function currentFolderMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const why =
    code === "ENOENT"
      ? "the current folder no longer exists (it was removed after the shell went into it)"
      : `the current folder cannot be read (${code ?? (error as Error)?.message ?? String(error)})`;
  return `${why}; cd to a folder that exists and run the command again`;
}

/**
 * The command the arguments name, as far as can be told without the parser: its first word,
 * and the next when the first is a group (`monitor stop`); flags alone are bare `obs`, a start.
 */
export function commandOfArguments(args: readonly string[]): string {
  const end = args.indexOf("--");
  const words = (end === -1 ? args : args.slice(0, end)).filter((arg) => !arg.startsWith("-"));
  const [first, second] = words;
  if (first === undefined) return "monitor start";
  if (second !== undefined && COMMAND_GROUPS.get(first)?.has(second)) return `${first} ${second}`;
  return first;
}

/** Reports a current folder obs cannot work in, as configuration errors are (exit 2). */
export function reportCurrentFolderProblem(args: readonly string[], error: unknown): number {
  const command = commandOfArguments(args);
  const message = currentFolderMessage(error);
  if (wantsJson(args) && command.startsWith("setup")) {
    // obs setup's one document is obs.setup/v1, failures included (setup-command.ts).
    process.stdout.write(`${JSON.stringify(setupErrorDocument("invalid_config", message), null, 2)}\n`);
    return exitCodeOf("invalid_config");
  }
  return emitError(wantsJson(args), command, "invalid_config", message);
}
