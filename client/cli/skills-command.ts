/** `obs skills list|view|check|improve`: the adapter over client/skills, loaded only when used. */
import type { CommandModule } from "yargs";
import { ExitCode } from "../../shared/exit-codes.js";
import type { CommandOutput } from "../skills/skill-commands.js";
import { runAction } from "./run-action.js";

type SetExit = (code: number) => void;

const SKILL_NAME_HELP = "The skill's name, as obs skills list prints it (without @version)";

async function run(
  setExit: SetExit,
  name: string,
  action: (
    commands: typeof import("../skills/skill-commands.js"),
    projectDir: string,
  ) => CommandOutput | Promise<CommandOutput>,
): Promise<void> {
  setExit(
    await runAction(false, `skills ${name}`, async () => {
      const commands = await import("../skills/skill-commands.js");
      const { projectDirOf } = await import("../skills/skill-catalog.js");
      const output = await action(commands, projectDirOf(process.cwd()));
      process.stdout.write(output.stdout);
      process.stderr.write(output.stderr);
      return output.code;
    }),
  );
}

export function skillsCommand(setExit: SetExit): CommandModule {
  return {
    command: "skills <command>",
    describe: "The skills the browser agent reads: bundled ones and project overrides in .obs/skills",
    builder: (argv) =>
      argv
        .command({
          command: "list",
          describe: "Print each skill as name@version and its description (project overrides replace bundled skills)",
          handler: () => run(setExit, "list", (commands, dir) => commands.listSkills(dir)),
        })
        .command({
          command: "view <name>",
          describe: "Print a skill's full content; an unknown name is exit 2",
          builder: (view) => view.positional("name", { type: "string", demandOption: true, describe: SKILL_NAME_HELP }),
          handler: (flags) => run(setExit, "view", (commands, dir) => commands.viewSkill(dir, String(flags.name))),
        })
        .command({
          command: "check",
          describe: "Validate bundled skills and project overrides; exit 1 on errors, warnings alone exit 0",
          handler: () => run(setExit, "check", (commands, dir) => commands.checkAllSkills(dir)),
        })
        .command({
          command: "improve <name>",
          describe:
            "Distill lessons from .obs/skills/journal.ndjson into an improved skill; prints the diff unless --write",
          builder: (improve) =>
            improve
              .positional("name", { type: "string", demandOption: true, describe: SKILL_NAME_HELP })
              .option("write", {
                type: "boolean",
                default: false,
                describe: "Write the improved skill to .obs/skills/<name>.md",
              }),
          handler: (flags) =>
            run(setExit, "improve", (commands, dir) =>
              commands.improveSkill(dir, String(flags.name), Boolean(flags.write)),
            ),
        })
        .demandCommand(1, "name a skills command: list, view, check or improve"),
    handler: () => {
      setExit(ExitCode.ok);
    },
  };
}
