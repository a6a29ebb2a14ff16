/**
 * `obs skills check`: the rules a skill must pass. Errors are hard (the agent could not use the
 * skill as written); warnings are advice. Pure apart from the `exists` callback for links.
 */
import { basename, dirname, resolve } from "node:path";
import semver from "semver";
import { INSTRUCTION_KINDS, parseSkill, type SkillDocument, SkillFormatError } from "./skill-document.js";

export const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 64;
export const MIN_DESCRIPTION_LENGTH = 20;
export const MAX_DESCRIPTION_LENGTH = 200;

export interface SkillDiagnostic {
  level: "error" | "warning";
  path: string;
  message: string;
}

export interface SkillSource {
  path: string;
  source: SkillDocument["source"];
  text: string;
}

/** Markdown inline links, `[text](target)`, outside code spans. */
const LINK = /\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

function linksOf(body: string): string[] {
  const withoutCode = body.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(LINK)].map((match) => match[1] as string);
}

export function checkSkills(sources: SkillSource[], exists: (path: string) => boolean): SkillDiagnostic[] {
  const diagnostics: SkillDiagnostic[] = [];
  const report = (level: SkillDiagnostic["level"], path: string, message: string) =>
    diagnostics.push({ level, path, message });

  const parsed: SkillDocument[] = [];
  for (const source of sources) {
    try {
      parsed.push(parseSkill(source.text, source.path, source.source));
    } catch (error) {
      if (!(error instanceof SkillFormatError)) throw error;
      report("error", source.path, error.message.slice(source.path.length + 2));
    }
  }

  const seen = new Map<string, string>();
  const bundledVersions = new Map<string, string>();
  for (const skill of parsed) {
    const { name } = skill.frontMatter;
    if (typeof name !== "string" || name === "") continue;
    const key = `${skill.source}\u0000${name}`;
    const first = seen.get(key);
    if (first) report("error", skill.path, `name "${name}" is already used by ${first}`);
    else seen.set(key, skill.path);
    if (skill.source === "bundled" && typeof skill.frontMatter.version === "string") {
      bundledVersions.set(name, skill.frontMatter.version);
    }
  }
  const known = new Set(parsed.map((skill) => skill.frontMatter.name).filter((name) => typeof name === "string"));

  for (const skill of parsed) {
    const { path, frontMatter: meta } = skill;
    const name = meta.name;
    if (typeof name !== "string" || name === "") report("error", path, "front matter has no name");
    else {
      if (!NAME_PATTERN.test(name) || name.length > MAX_NAME_LENGTH) {
        report(
          "error",
          path,
          `name "${name}" must be lowercase letters and digits in words joined by "-", at most ${MAX_NAME_LENGTH} characters`,
        );
      }
      if (basename(path) !== `${name}.md`) report("warning", path, `file name should be ${name}.md`);
    }

    const version = meta.version;
    if (typeof version !== "string" || version === "") report("error", path, "front matter has no version");
    else if (semver.valid(version) === null) report("error", path, `version "${version}" is not semver (e.g. 1.2.0)`);
    else if (skill.source === "project" && typeof name === "string") {
      const bundled = bundledVersions.get(name);
      if (bundled && semver.valid(bundled) && semver.lt(version, bundled)) {
        report("warning", path, `overrides bundled ${name}@${bundled} with an older version ${version}`);
      }
    }

    const description = meta.description;
    if (typeof description !== "string" || description.trim() === "") {
      report("error", path, "front matter has no description");
    } else if (description.length > MAX_DESCRIPTION_LENGTH) {
      report(
        "warning",
        path,
        `description is ${description.length} characters; keep it under ${MAX_DESCRIPTION_LENGTH}`,
      );
    } else if (description.trim().length < MIN_DESCRIPTION_LENGTH) {
      report("warning", path, `description is only ${description.trim().length} characters; say what the skill is for`);
    }

    if (meta.applies_to !== undefined) {
      const kinds = meta.applies_to as unknown;
      if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((kind) => INSTRUCTION_KINDS.includes(kind))) {
        report("error", path, `applies_to must be a list of ${INSTRUCTION_KINDS.join(" and ")}`);
      }
    }
    if (meta.always !== undefined && typeof meta.always !== "boolean")
      report("error", path, "always must be true or false");
    const keywords = meta.keywords as unknown;
    if (keywords !== undefined && (!Array.isArray(keywords) || !keywords.every((word) => typeof word === "string"))) {
      report("error", path, "keywords must be a list of words or phrases");
    } else if ((keywords === undefined || keywords.length === 0) && meta.always !== true) {
      report("warning", path, "no keywords and not always: the agent never selects this skill");
    }

    if (skill.body.trim() === "") report("error", path, "the body is empty: a skill needs instructions");
    for (const target of linksOf(skill.body)) {
      if (target.startsWith("skill:")) {
        const wanted = target.slice("skill:".length);
        if (!known.has(wanted)) report("error", path, `links to skill "${wanted}", which does not exist`);
      } else if (!/^[a-z][a-z0-9+.-]*:|^#/i.test(target)) {
        const file = resolve(dirname(path), decodeURI(target.split("#")[0] as string));
        if (!exists(file)) report("error", path, `links to ${target}, which does not exist`);
      }
    }
  }
  return diagnostics.sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.level === b.level ? 0 : a.level === "error" ? -1 : 1),
  );
}
