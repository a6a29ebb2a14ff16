/**
 * Argument errors (unknown commands and flags, missing or invalid values), reported like every
 * other failure: with `--json`, one `obs.cli/v1` document with `error` on stdout; without it, one
 * line on stderr naming the problem and the `--help` to run. yargs finds these errors; this
 * module only decides how they read.
 */
import { UsageError } from "../../shared/usage-failure.js";
import { emitError } from "../render/output.js";

/** Commands whose first argument names a subcommand (`obs monitor stop`). */
const COMMAND_GROUPS = new Set(["monitor", "setup", "skills"]);

/**
 * yargs `.fail()` handler: argument errors become a UsageError that `main` reports; any other
 * error (a command that threw) goes on unchanged.
 */
export function throwUsageError(message: string | null, error: Error | undefined): never {
  // yargs reports its own parse errors, and errors thrown by `coerce`, as YError.
  if (error && !(error instanceof UsageError) && error.name !== "YError") throw error;
  throw new UsageError(error?.message ?? message ?? "invalid arguments");
}

/** The arguments before `--`: after it, nothing is an option of obs. */
function ownArguments(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

/** Whether the command line asks for a JSON document (`--json`, `--json=true`). */
export function wantsJson(args: readonly string[]): boolean {
  let json = false;
  for (const arg of ownArguments(args)) {
    if (arg === "--json" || arg === "--json=true") json = true;
    else if (arg === "--no-json" || arg === "--json=false") json = false;
  }
  return json;
}

/**
 * The command the arguments name, as far as they name one: `["traces"]`, `["monitor", "stop"]`,
 * or `[]` when the first argument is not a command.
 */
export function commandPathOf(args: readonly string[], commands: ReadonlySet<string>): string[] {
  const [first, second] = ownArguments(args);
  if (first === undefined || !commands.has(first)) return [];
  if (COMMAND_GROUPS.has(first) && second !== undefined && /^[a-z][a-z-]*$/.test(second)) return [first, second];
  return [first];
}

/**
 * yargs names unknown flags without their dashes ("Unknown argument: bogus"); the message names
 * them as they were typed (`--bogus`), so the reader sees which word to fix.
 */
export function usageMessage(message: string, args: readonly string[]): string {
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (!unknown) return message;
  const typed = (unknown[1] as string).split(", ").map((name) => {
    const flag = ownArguments(args).find(
      (arg) => arg === `--${name}` || arg.startsWith(`--${name}=`) || arg === `-${name}`,
    );
    return flag ? (flag.split("=")[0] as string) : name;
  });
  return `unknown ${typed.every((name) => name.startsWith("-")) ? "option" : "argument"}${typed.length > 1 ? "s" : ""} ${typed.join(", ")}`;
}

/** Reports an argument error and returns its exit code (2). */
export function reportUsageError(args: readonly string[], commands: ReadonlySet<string>, message: string): number {
  const path = commandPathOf(args, commands);
  const command = path.join(" ");
  const text = usageMessage(message, args);
  const help = `obs ${command ? `${command} ` : ""}--help`;
  if (wantsJson(args)) return emitError(true, command || "obs", "invalid_argument", text, { help });
  return emitError(false, command || "obs", "invalid_argument", `${command ? `${command}: ` : ""}${text}; see ${help}`);
}
