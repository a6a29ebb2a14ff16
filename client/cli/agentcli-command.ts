import type { CommandModule } from "yargs";
import { exitCodeOf } from "../../shared/cli-envelope.js";

type SetExit = (code: number) => void;

/**
 * `obs agentcli [ARGS...]`. The entry point runs it before yargs sees the arguments, so every
 * one reaches the agent exactly as typed; this module gives it a place in `--help`.
 */
export function agentcliCommand(setExit: SetExit): CommandModule {
  return {
    command: "agentcli [args..]",
    describe: "Launch agentcli with every argument passed through, exporting its telemetry to the saved collector",
    builder: (argv) => argv.strict(false),
    handler: async () => {
      const args = process.argv.slice(process.argv.indexOf("agentcli") + 1);
      setExit(await runAgentcli(args));
    },
  };
}

export async function runAgentcli(args: string[]): Promise<number> {
  const { launchAgentcli } = await import("../setup/launch-agentcli.js");
  const { LifecycleError } = await import("../lifecycle/lifecycle-error.js");
  try {
    return await launchAgentcli(args);
  } catch (error) {
    const { StateDirError } = await import("../../shared/state-dir.js");
    if (error instanceof StateDirError) {
      process.stderr.write(`obs: ${error.message}\n`);
      return exitCodeOf("invalid_config");
    }
    if (!(error instanceof LifecycleError)) throw error;
    process.stderr.write(`obs: ${error.message}\n`);
    return exitCodeOf(error.code);
  }
}
