/**
 * Which skills the agent reads for one instruction. The rule (docs/skills.md):
 *   1. only skills whose `applies_to` includes the instruction's kind (act or check);
 *   2. score = 2 for each keyword found in the instruction + 1 for each keyword found in the
 *      labels of the page's interactive elements (case-insensitive, whole words);
 *   3. skills marked `always` are included with their score, others only when it is above 0;
 *   4. highest score first, then by name; at most MAX_SKILLS_PER_INSTRUCTION.
 * Pure: the same skills, instruction and page give the same choice.
 */
import { type InstructionKind, type SkillDocument, skillKinds } from "./skill-document.js";

export const MAX_SKILLS_PER_INSTRUCTION = 3;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whole-word, case-insensitive: "form" matches "the form" but not "information". */
export function mentions(text: string, keyword: string): boolean {
  const words = keyword.trim().split(/\s+/).map(escapeRegExp).join("\\s+");
  if (!words) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}])${words}(?![\\p{L}\\p{N}])`, "iu").test(text);
}

export interface SelectionInput {
  kind: InstructionKind;
  instruction: string;
  /** Labels of the page's interactive elements. */
  labels: string[];
}

export interface SelectedSkill {
  skill: SkillDocument;
  score: number;
}

export function selectSkills(skills: SkillDocument[], input: SelectionInput): SelectedSkill[] {
  const labels = input.labels.join("\n");
  const scored: SelectedSkill[] = [];
  for (const skill of skills) {
    if (!skillKinds(skill).includes(input.kind)) continue;
    const keywords = Array.isArray(skill.frontMatter.keywords) ? skill.frontMatter.keywords.map(String) : [];
    let score = 0;
    for (const keyword of keywords) {
      if (mentions(input.instruction, keyword)) score += 2;
      if (mentions(labels, keyword)) score += 1;
    }
    if (score > 0 || skill.frontMatter.always === true) scored.push({ skill, score });
  }
  const name = (entry: SelectedSkill) => String(entry.skill.frontMatter.name);
  return scored
    .sort((a, b) => b.score - a.score || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
    .slice(0, MAX_SKILLS_PER_INSTRUCTION);
}
