/** `obs skills list|view|check|improve`: each returns its text and exit code; the CLI prints them. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ExitCode } from "../../shared/exit-codes.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { loadCatalog, projectSkillsDir, type SkillCatalog, skillFiles } from "./skill-catalog.js";
import { checkSkills } from "./skill-check.js";

export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

function requireSkill(catalog: SkillCatalog, name: string) {
  const skill = catalog.skills.find((candidate) => candidate.frontMatter.name === name);
  if (!skill) {
    const names = catalog.skills.map((candidate) => candidate.frontMatter.name).join(", ");
    throw new LifecycleError("invalid_argument", `no skill named "${name}"; skills: ${names}`);
  }
  return skill;
}

export function listSkills(projectDir: string): CommandOutput {
  const catalog = loadCatalog(projectDir);
  const lines = catalog.skills.map(
    (skill) => `${skill.frontMatter.name}@${skill.frontMatter.version} ${skill.frontMatter.description}`,
  );
  const overridden = catalog.skills
    .filter((skill) => skill.source === "project")
    .map((skill) => skill.frontMatter.name);
  const note = overridden.length
    ? `obs: from ${relative(projectDir, projectSkillsDir(projectDir)) || "."}: ${overridden.join(", ")}\n`
    : "";
  return { code: ExitCode.ok, stdout: `${lines.join("\n")}\n`, stderr: note };
}

export function viewSkill(projectDir: string, name: string): CommandOutput {
  const skill = requireSkill(loadCatalog(projectDir), name);
  return { code: ExitCode.ok, stdout: skill.text.endsWith("\n") ? skill.text : `${skill.text}\n`, stderr: "" };
}

export function checkAllSkills(projectDir: string): CommandOutput {
  const files = skillFiles(projectDir);
  const sources = files.map((file) => ({ ...file, text: readFileSync(file.path, "utf8") }));
  const diagnostics = checkSkills(sources, existsSync);
  const shown = (path: string) => relative(projectDir, path) || path;
  const errors = diagnostics.filter((entry) => entry.level === "error").length;
  const warnings = diagnostics.length - errors;
  const lines = diagnostics.map((entry) => `${entry.level.padEnd(7)} ${shown(entry.path)}: ${entry.message}`);
  lines.push(
    `${files.length} ${files.length === 1 ? "skill" : "skills"} checked: ${errors} ${errors === 1 ? "error" : "errors"}, ${warnings} ${warnings === 1 ? "warning" : "warnings"}`,
  );
  return { code: errors > 0 ? ExitCode.failed : ExitCode.ok, stdout: `${lines.join("\n")}\n`, stderr: "" };
}

/** Written next to the target and renamed over it, so a reader never sees half a skill. */
function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** The journal, its validator and the diff are loaded only here: list, view and check stay light. */
export async function improveSkill(projectDir: string, name: string, write: boolean): Promise<CommandOutput> {
  const { journalPath, readJournal } = await import("./skill-journal.js");
  const { baseOf, distillLessons, improvedSkillText } = await import("./skill-distillation.js");
  const { createTwoFilesPatch } = await import("diff");
  const catalog = loadCatalog(projectDir);
  const skill = requireSkill(catalog, name);
  const { entries, problems } = readJournal(projectDir);
  const journal = relative(projectDir, journalPath(projectDir));
  const stderr = problems.map((problem) => `obs: ${journal}:${problem.line}: skipped: ${problem.message}\n`).join("");
  const lessons = distillLessons(entries, name);
  const proposed = improvedSkillText(baseOf(skill, catalog.bundled.get(name)), lessons);
  if (proposed === null) {
    const mentioned = entries.filter((entry) => entry.skill === name).length;
    return {
      code: ExitCode.ok,
      stdout: `${name}: nothing to distill (${mentioned} journal ${mentioned === 1 ? "entry names" : "entries name"} it; a lesson needs a passing run or to be seen in several runs)\n`,
      stderr,
    };
  }
  const target = join(projectSkillsDir(projectDir), `${name}.md`);
  if (proposed === skill.text) {
    return { code: ExitCode.ok, stdout: `${name}: ${relative(projectDir, target)} is up to date\n`, stderr };
  }
  if (!write) {
    const patch = createTwoFilesPatch(
      relative(projectDir, skill.path) || skill.path,
      relative(projectDir, target),
      skill.text,
      proposed,
      undefined,
      undefined,
      { context: 3 },
    );
    return {
      code: ExitCode.ok,
      stdout: `${patch}${name}: ${lessons.length} ${lessons.length === 1 ? "lesson" : "lessons"}; run with --write to save ${relative(projectDir, target)}\n`,
      stderr,
    };
  }
  mkdirSync(projectSkillsDir(projectDir), { recursive: true });
  writeAtomically(target, proposed);
  return {
    code: ExitCode.ok,
    stdout: `${name}: wrote ${relative(projectDir, target)} (${lessons.length} ${lessons.length === 1 ? "lesson" : "lessons"})\n`,
    stderr,
  };
}
