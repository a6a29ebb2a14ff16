/**
 * Argument errors (unknown commands and flags, missing or invalid values), reported like every
 * other failure: with `--json`, one `obs.cli/v1` document with `error` on stdout (obs setup's
 * own `obs.setup/v1`); without it, one line on stderr naming the problem and the `--help` to
 * run. yargs finds these errors; this module only decides how they read.
 */
import { exitCodeOf } from "../../shared/cli-envelope.js";
import { UsageError } from "../../shared/usage-failure.js";
import { emitError } from "../render/output.js";
import { setupErrorDocument } from "../setup/setup-document.js";

/**
 * Commands whose first argument names a subcommand (`obs monitor stop`), and those
 * subcommands: a word that is not one of them is not part of the command a help hint names.
 * Kept equal to what the builders define (monitor-command.ts, setup-command.ts,
 * skills-command.ts); cli-help.test.ts compares it with each group's --help.
 */
export const COMMAND_GROUPS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["monitor", new Set(["start", "stop", "status"])],
  ["setup", new Set(["agentcli"])],
  ["skills", new Set(["list", "view", "check", "improve"])],
]);

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

/** The first word that is not an option: the command yargs runs (`obs --json tracs` → tracs). */
function firstWord(args: readonly string[]): string | undefined {
  return ownArguments(args).find((arg) => !arg.startsWith("-"));
}

/**
 * The deepest command the arguments name: `["traces"]`, `["monitor", "stop"]`, `["monitor"]`
 * for `monitor bogus`, or `[]` when the first word is not a command.
 */
export function commandPathOf(args: readonly string[], commands: ReadonlySet<string>): string[] {
  const [first, second] = ownArguments(args);
  if (first === undefined || !commands.has(first)) return [];
  if (second !== undefined && COMMAND_GROUPS.get(first)?.has(second)) return [first, second];
  return [first];
}

/**
 * When a word that should name a command does not (the first word, or the one after a command
 * group such as `monitor`), that is the one mistake to report: yargs would list it among
 * "unknown arguments" with every flag after it, valid ones included (they are unknown only
 * because no command took them). yargs' own suggestion (`recommendCommands`: "Did you mean
 * traces?") is kept; without one, a group lists its commands. Null when the words name a command.
 */
export function unknownCommandMessage(
  args: readonly string[],
  commands: ReadonlySet<string>,
  message: string,
): string | null {
  const path = commandPathOf(args, commands);
  const group = path.length === 1 ? COMMAND_GROUPS.get(path[0] as string) : undefined;
  const next = ownArguments(args)[1];
  const word =
    path.length === 0 ? firstWord(args) : group && next !== undefined && !next.startsWith("-") ? next : undefined;
  if (word === undefined) return null;
  const suggestion = /^Did you mean (\S+)\?$/.exec(message)?.[1];
  const hint = suggestion ? ` (did you mean ${suggestion}?)` : group ? ` (commands: ${[...group].join(", ")})` : "";
  return `unknown command ${word}${hint}`;
}

/**
 * yargs names unknown flags without their dashes ("Unknown argument: bogus"); the message names
 * them as they were typed (`--bogus`), so the reader sees which word to fix.
 */
export function usageMessage(message: string, args: readonly string[]): string {
  // yargs' requiresArg: "Not enough arguments following: since".
  const missing = /^Not enough arguments following: (.+)$/.exec(message);
  if (missing) return `--${missing[1]} needs a value`;
  if (message.startsWith("Invalid values:")) return choicesMessage(message, args);
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (!unknown) return message;
  const names = (unknown[1] as string).split(", ");
  // yargs names an unknown `--bogus-flag` twice, as itself and as its camelCase alias.
  const camel = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const own = names.filter((name) => !names.some((other) => other !== name && camel(other) === name));
  const typed = own.map((name) => {
    const flag = ownArguments(args).find(
      (arg) => arg === `--${name}` || arg.startsWith(`--${name}=`) || arg === `-${name}`,
    );
    return flag ? (flag.split("=")[0] as string) : name;
  });
  return `unknown ${typed.every((name) => name.startsWith("-")) ? "option" : "argument"}${typed.length > 1 ? "s" : ""} ${typed.join(", ")}`;
}

/**
 * yargs' `choices` check lists each wrong value on a line of its own under "Invalid values:"
 * (`Argument: status, Given: "bogus", Choices: "ok", "error"`); the message gives them in one
 * line, a flag as typed (`--status`), a positional by its name (`agg`).
 */
function choicesMessage(message: string, args: readonly string[]): string {
  const own = ownArguments(args);
  const wrong = [...message.matchAll(/Argument: (\S+), Given: (.*), Choices: (.*)$/gm)].map(
    ([, name, given, choices]) => {
      const typed = own.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
      return `${typed ? `--${name}` : name} ${given}: use one of ${(choices as string).replace(/"/g, "")}`;
    },
  );
  return wrong.length > 0 ? wrong.join("; ") : message.replace(/\s*\n\s*/g, " ");
}

/** What yargs knows of a command's flags (`getOptions()`), as far as repeats and `--no-` need. */
export interface FlagDefinitions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  boolean: string[];
  array: string[];
  default: Record<string, unknown>;
}

/**
 * One use of a flag on the command line: its name as typed, whether it came as `--no-NAME`,
 * and the value written after `=` in the same word (`--json=1`), if any.
 */
interface FlagUse {
  typed: string;
  negated: boolean;
  value?: string;
}

/**
 * Each use of the command's flags, by flag (its first name); names it does not know are left
 * to yargs' unknown-option error. Short flags may be bundled (`-vp 9`); a letter that is no
 * flag ends the bundle, the rest being its value (`-p9`).
 */
function flagUses(args: readonly string[], flags: FlagDefinitions): Map<string, FlagUse[]> {
  const canonical = new Map<string, string>();
  for (const [name, aliases] of Object.entries(flags.alias)) {
    for (const alias of [name, ...aliases]) if (!canonical.has(alias)) canonical.set(alias, name);
  }
  for (const name of Object.keys(flags.key)) if (!canonical.has(name)) canonical.set(name, name);
  // yargs also takes a flag by its camelCase name (`--durationMin`).
  const known = (name: string) => canonical.get(name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`));
  const uses = new Map<string, FlagUse[]>();
  const add = (flag: string, use: FlagUse) => uses.set(flag, [...(uses.get(flag) ?? []), use]);
  for (const arg of ownArguments(args)) {
    // A lone "-" (stdin) and a negative number are values.
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) continue;
    if (arg.startsWith("--")) {
      const [name, ...rest] = arg.slice(2).split("=") as [string, ...string[]];
      const value = rest.length > 0 ? { value: rest.join("=") } : {};
      const flag = known(name);
      if (flag !== undefined) add(flag, { typed: `--${name}`, negated: false, ...value });
      else if (name.startsWith("no-") && known(name.slice(3)) !== undefined) {
        add(known(name.slice(3)) as string, { typed: `--${name}`, negated: true, ...value });
      }
      continue;
    }
    for (const letter of arg.slice(1)) {
      const flag = known(letter);
      if (flag === undefined) break;
      add(flag, { typed: `-${letter}`, negated: false });
    }
  }
  return uses;
}

/**
 * Why the flags are used in a way yargs would take without a word, or null. A switch given a
 * value is refused unless it is `true` or `false` (`--json=1` would be off). A flag given twice
 * would be read as a list of both values (a --service of "a,b") or the last one: only the
 * flags that collect values (`--forward`, `--group-by`) repeat. `--no-NAME` of a flag that takes
 * a value would send "false" or 0 as that value, and of a switch whose default is off it reads
 * as leaving the switch out: only switches that are on by default (`--stream`, `--open`), or
 * whose default comes from the environment or a config file (`--headed`), turn off.
 */
export function flagUseProblem(args: readonly string[], flags: FlagDefinitions): string | null {
  for (const [flag, uses] of flagUses(args, flags)) {
    if (flag === "help" || flag === "version") continue;
    const isSwitch = flags.boolean.includes(flag);
    // yargs reads a switch's `=1` or `=yes` as off, without a word.
    const valued = uses.find((use) => use.value !== undefined && (use.negated || !/^(true|false)$/.test(use.value)));
    if (isSwitch && valued) {
      return `${valued.typed}=${valued.value}: --${flag} is a switch, on or off; give --${flag} alone (or --${flag}=true)`;
    }
    const negated = uses.find((use) => use.negated);
    if (negated && !(isSwitch && flags.default[flag] !== false)) {
      return isSwitch
        ? `${negated.typed} turns nothing off (--${flag} is off unless given); leave it out`
        : `${negated.typed}: --${flag} takes a value and has no --no- form; leave it out for its default`;
    }
    if (uses.length > 1 && !flags.array.includes(flag)) {
      const forms = [...new Set(uses.map((use) => use.typed))];
      return `--${flag} is given more than once${forms.length > 1 ? ` (as ${forms.join(" and ")})` : ""}: give it once`;
    }
  }
  return null;
}

/** Reports an argument error and returns its exit code (2). */
export function reportUsageError(args: readonly string[], commands: ReadonlySet<string>, message: string): number {
  const path = commandPathOf(args, commands);
  const command = path.join(" ");
  // One line, whatever yargs wrote: the line is the message and the --help that explains it.
  const text = (unknownCommandMessage(args, commands, message) ?? usageMessage(message, args)).replace(
    /\s*\n\s*/g,
    " ",
  );
  const help = `obs ${command ? `${command} ` : ""}--help`;
  // obs mcp's stdout carries MCP alone (docs/mcp.md), so its usage errors go to stderr, --json or not.
  const json = wantsJson(args) && path[0] !== "mcp";
  if (json && path[0] === "setup") {
    // obs setup's one document is obs.setup/v1, failures included (setup-command.ts).
    process.stdout.write(`${JSON.stringify(setupErrorDocument("invalid_argument", text, { help }), null, 2)}\n`);
    return exitCodeOf("invalid_argument");
  }
  if (json) return emitError(true, command || "obs", "invalid_argument", text, { help });
  return emitError(false, command || "obs", "invalid_argument", `${command ? `${command}: ` : ""}${text}; see ${help}`);
}
