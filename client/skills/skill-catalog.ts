/**
 * Where skills live: the bundled ones shipped with obs, and project overrides in
 * `<project>/.obs/skills/<name>.md`. An override replaces the bundled skill of the same name;
 * an override with a new name adds a project-only skill.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { packagePath } from "../../shared/package-root.js";
import { findConfig } from "../checks/config/config-location.js";
import { parseSkill, type SkillDocument, SkillFormatError } from "./skill-document.js";

export const BUNDLED_SKILLS_DIR = packagePath("client", "skills", "bundled");
/** Under the project: overrides (`<name>.md`) and the journal. */
export const PROJECT_SKILLS_DIR = join(".obs", "skills");

/** The project a command works on: the folder of the nearest obs.config.ts, else the working directory. */
export function projectDirOf(cwd: string): string {
  const config = findConfig(cwd);
  return config ? dirname(config) : cwd;
}

export function projectSkillsDir(projectDir: string): string {
  return join(projectDir, PROJECT_SKILLS_DIR);
}

export interface SkillFile {
  path: string;
  source: SkillDocument["source"];
}

/** The Markdown files of a folder, by name, so every listing has the same order. */
function markdownFiles(dir: string, source: SkillDocument["source"]): SkillFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ path: join(dir, name), source }));
}

export function skillFiles(projectDir: string): SkillFile[] {
  return [...markdownFiles(BUNDLED_SKILLS_DIR, "bundled"), ...markdownFiles(projectSkillsDir(projectDir), "project")];
}

export interface SkillCatalog {
  /** Effective skills by name, sorted by name: a project override wins over the bundled skill. */
  skills: SkillDocument[];
  bundled: Map<string, SkillDocument>;
  overrides: Map<string, SkillDocument>;
  /** Files that could not be read as skills; `obs skills check` reports them. */
  unreadable: { path: string; message: string }[];
}

export function loadCatalog(projectDir: string): SkillCatalog {
  const bundled = new Map<string, SkillDocument>();
  const overrides = new Map<string, SkillDocument>();
  const unreadable: SkillCatalog["unreadable"] = [];
  for (const file of skillFiles(projectDir)) {
    let skill: SkillDocument;
    try {
      skill = parseSkill(readFileSync(file.path, "utf8"), file.path, file.source);
    } catch (error) {
      if (!(error instanceof SkillFormatError)) throw error;
      unreadable.push({ path: file.path, message: error.message });
      continue;
    }
    const name = String(skill.frontMatter.name ?? "");
    const into = file.source === "bundled" ? bundled : overrides;
    if (!into.has(name)) into.set(name, skill);
  }
  const effective = new Map(bundled);
  for (const [name, skill] of overrides) effective.set(name, skill);
  const skills = [...effective.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, skill]) => skill);
  return { skills, bundled, overrides, unreadable };
}
