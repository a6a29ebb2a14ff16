/**
 * The full `obs` command line, parsed by yargs. Each command loads only the modules it needs
 * when it runs.
 */
import type { MiddlewareFunction } from "yargs";
import { joinDashValues, takesNextValue } from "../../shared/collector-flags.js";
import { ExitCode } from "../../shared/exit-codes.js";
import { OBS_VERSION } from "../../shared/package-root.js";
import { UsageError } from "../../shared/usage-failure.js";
import { yargs } from "../../shared/yargs-loader.js";
import { agentcliCommand } from "./agentcli-command.js";
import { auditCommand } from "./audit-command.js";
import { checksCommands } from "./checks-command.js";
import { positionalsAfterDoubleDash } from "./double-dash.js";
import { facetsCommand } from "./facets-command.js";
import { logsCommands } from "./logs-commands.js";
import { mcpCommand } from "./mcp-command.js";
import { metricsCommands } from "./metrics-commands.js";
import { monitorCommand } from "./monitor-command.js";
import { openCommand } from "./open-command.js";
import { servicesCommand } from "./services-command.js";
import { setupCommand } from "./setup-command.js";
import { showReportCommand } from "./show-report-command.js";
import { skillsCommand } from "./skills-command.js";
import { spanCommand } from "./span-command.js";
import { spansCommand } from "./spans-command.js";
import { statsCommands } from "./stats-commands.js";
import { statusCommand } from "./status-command.js";
import { traceCommand } from "./trace-command.js";
import { tracesCommand } from "./traces-command.js";
import { type FlagDefinitions, flagUseProblem, reportUsageError, throwUsageError } from "./usage-errors.js";

/**
 * A middleware that refuses a flag given twice, or negated where that means nothing
 * (flagUseProblem). yargs hands a middleware the parser of the command that runs, whose
 * options are that command's flags, though its types leave the argument out.
 */
function refuseFlagMisuse(args: readonly string[]): MiddlewareFunction {
  // A line being completed is half typed: the shell shows whatever this prints.
  if (args.includes("--get-yargs-completions")) return (() => {}) as MiddlewareFunction;
  const refuse = (_flags: unknown, parser: { getOptions(): FlagDefinitions }) => {
    const problem = flagUseProblem(args, parser.getOptions());
    if (problem) throw new UsageError(problem);
  };
  return refuse as unknown as MiddlewareFunction;
}

/** Flags of obs itself, which a line of flags alone means rather than `obs monitor start`'s. */
const OWN_FLAGS = new Set(["--help", "-h", "--version", "--get-yargs-completions"]);

/**
 * Bare `obs` is `obs monitor start`, with its flags too (`obs --port 27700`): a line of flags
 * that names no command, and none of obs's own flags, is a start.
 */
function bareStart(argv: string[], commandNames: ReadonlySet<string>): boolean {
  if (argv.length === 0) return true;
  if (!argv[0]?.startsWith("-")) return false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (commandNames.has(word) || OWN_FLAGS.has(word)) return false;
    // A start flag's value is no command, whatever it reads (`obs --db logs`).
    if (takesNextValue(word)) i++;
  }
  return true;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const commands = [
    monitorCommand(setExit),
    statusCommand(setExit),
    openCommand(setExit),
    servicesCommand(setExit),
    tracesCommand(setExit),
    traceCommand(setExit),
    spansCommand(setExit),
    ...logsCommands(setExit),
    spanCommand(setExit),
    ...statsCommands(setExit),
    ...metricsCommands(setExit),
    facetsCommand(setExit),
    auditCommand(setExit),
    mcpCommand(setExit),
    setupCommand(setExit),
    agentcliCommand(setExit),
    ...checksCommands(setExit),
    showReportCommand(setExit),
    skillsCommand(setExit),
  ];
  const names = new Set([...commands.map((c) => String(c.command).split(" ")[0] as string), "completion"]);
  const start = bareStart(argv, names) ? ["monitor", "start", ...argv] : argv;
  // Only the collector's start flags: other commands' arguments (obs agentcli's) are not obs's to rewrite.
  const args = start[0] === "monitor" && start[1] === "start" ? joinDashValues(start) : start;
  try {
    // A completion request's words are half typed: yargs answers them as they are.
    const parser = yargs(args.includes("--get-yargs-completions") ? args : positionalsAfterDoubleDash(args));
    await parser
      .scriptName("obs")
      .usage("$0 <command> [options]\n\nLocal telemetry monitor. Bare `obs` is `obs monitor start`.")
      .command(commands)
      // A command of its own rather than yargs' .completion(), which prints the script for any
      // words after it (before --help, or before the error an unknown flag gets). yargs answers
      // --get-yargs-completions, which the script calls, without it.
      .command({
        command: "completion",
        describe: 'Print a bash/zsh completion script: eval "$(obs completion)" in your shell profile',
        handler: () => {
          parser.showCompletionScript();
          setExit(ExitCode.ok);
        },
      })
      // Runs before yargs checks and coerces the values, which it would read as a list of both.
      .middleware(refuseFlagMisuse(args), true)
      .demandCommand(1, "name a command")
      // A mistyped command gets "Did you mean ...?", which reportUsageError folds into its message.
      .recommendCommands()
      .version(OBS_VERSION)
      .strict()
      // --help and --version end like any command (entry.ts exits once stdout has drained).
      .exitProcess(false)
      .fail(throwUsageError)
      .parseAsync();
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError(args, names, error.message);
    throw error;
  }
  return exitCode;
}
