/**
 * `obs`: the command-line client. `obs monitor status`, which shell prompts call on every
 * line, runs without loading yargs; `obs agentcli` hands its arguments to the agent untouched;
 * every other command goes through the full parser.
 */
import { ExitCode } from "../../shared/exit-codes.js";
import { fastCommandOf } from "./fast-path.js";
import { exitWhenFlushed, watchWriteErrors } from "./flush-exit.js";

async function run(args: string[]): Promise<number> {
  try {
    process.cwd();
  } catch (error) {
    // A removed current folder: yargs itself reads it as it loads, so this comes first.
    const { reportCurrentFolderProblem } = await import("./current-folder.js");
    return reportCurrentFolderProblem(args, error);
  }
  const fast = fastCommandOf(args);
  if (fast) {
    const { monitorStatus } = await import("./monitor-status.js");
    return monitorStatus(fast.json, fast.address);
  }
  if (args[0] === "agentcli") {
    // Everything after `agentcli` belongs to the agent, so no parser may see it.
    const { runAgentcli } = await import("./agentcli-command.js");
    return runAgentcli(args.slice(1));
  }
  const { main } = await import("./main.js");
  return main(args);
}

watchWriteErrors();
run(process.argv.slice(2)).then(exitWhenFlushed, (error: Error) => {
  process.stderr.write(`obs: ${process.env.OBS_DEBUG ? error.stack : error.message}\n`);
  return exitWhenFlushed(ExitCode.storeFailure);
});
