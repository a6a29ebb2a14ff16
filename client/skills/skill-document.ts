/**
 * A skill: a short Markdown document the browser agent reads, with YAML front matter. Parsing
 * and rendering are pure; nothing here touches the file system.
 */
import { dump, JSON_SCHEMA, load } from "js-yaml";

export type InstructionKind = "act" | "check";
export const INSTRUCTION_KINDS: readonly InstructionKind[] = ["act", "check"];

export interface SkillFrontMatter {
  name: string;
  version: string;
  description: string;
  /** Which instructions the skill is for; both when absent. */
  applies_to?: InstructionKind[];
  /** Included for every instruction of its kinds, whatever the keywords. */
  always?: boolean;
  /** Words and phrases that make the skill relevant (see skill-selection.ts). */
  keywords?: string[];
  /** On an improved skill: the skill and version it was distilled from. */
  based_on?: string;
  [key: string]: unknown;
}

export interface SkillDocument {
  /** Where it came from, for messages: a file path. */
  path: string;
  source: "bundled" | "project";
  frontMatter: SkillFrontMatter;
  body: string;
  /** The file exactly as read. */
  text: string;
}

/** A document that cannot be read as a skill at all: no front matter, or front matter that is not YAML. */
export class SkillFormatError extends Error {
  override name = "SkillFormatError";
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

export function parseSkill(text: string, path: string, source: SkillDocument["source"]): SkillDocument {
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  if (!match) throw new SkillFormatError(`${path}: no front matter (the file must start with a --- block)`);
  let data: unknown;
  try {
    data = load(match[1] as string, { schema: JSON_SCHEMA });
  } catch (error) {
    throw new SkillFormatError(`${path}: front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SkillFormatError(`${path}: front matter must be a mapping of keys to values`);
  }
  return { path, source, frontMatter: data as SkillFrontMatter, body: match[2] as string, text };
}

/** Front matter keys in a fixed order, then any others by name, so rendering is deterministic. */
const KEY_ORDER = ["name", "version", "description", "applies_to", "always", "keywords", "based_on"];

export function renderSkill(frontMatter: SkillFrontMatter, body: string): string {
  const keys = Object.keys(frontMatter)
    .filter((key) => frontMatter[key] !== undefined)
    .sort((a, b) => {
      const rank = (key: string) => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);
      return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
    });
  const lines = keys.map((key) => {
    const value = frontMatter[key];
    const rendered = Array.isArray(value)
      ? `[${value.map((item) => dump(item, { flowLevel: 0 }).trim()).join(", ")}]`
      : dump(value, { lineWidth: -1 }).trim();
    return `${key}: ${rendered}`;
  });
  return `---\n${lines.join("\n")}\n---\n${body.startsWith("\n") ? body.slice(1) : body}`;
}

export function skillKinds(skill: SkillDocument): InstructionKind[] {
  const kinds = skill.frontMatter.applies_to;
  return Array.isArray(kinds) && kinds.length > 0 ? kinds : [...INSTRUCTION_KINDS];
}

export function skillLabel(skill: SkillDocument): string {
  return `${skill.frontMatter.name}@${skill.frontMatter.version}`;
}
