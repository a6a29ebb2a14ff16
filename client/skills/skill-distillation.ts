/**
 * `obs skills improve`: the journal distilled into an improved skill. Deterministic: lessons
 * are grouped by their normalized text, kept when a passing run held them or several runs saw
 * them, ranked by how many runs saw them and how recently, and written under the base skill's
 * own text with their provenance counts. The result depends only on the base skill and the
 * journal, so distilling twice gives the same file. Only a lesson's text, its counts, dates and
 * sites (origins) reach the skill, never an entry's instruction or test; and the runner redacts
 * every entry before it is written (a secret is its `%name%` placeholder there), so no secret's
 * value can reach a skill through here.
 */
import semver from "semver";
import { renderSkill, type SkillDocument, type SkillFrontMatter } from "./skill-document.js";
import type { JournalEntry } from "./skill-journal.js";

export const LEARNED_HEADING = "## Learned from runs";
/** A skill is read on every matching step: keep the learned part short. */
export const MAX_LEARNED_LESSONS = 12;
/** A lesson no passing run held must be seen by at least this many runs. */
export const MIN_RUNS_WITHOUT_PASS = 2;

export interface DistilledLesson {
  text: string;
  /** Distinct test runs that recorded it. */
  runs: number;
  /** Of those, runs whose test passed. */
  passingRuns: number;
  /** The newest `recorded_at`. */
  lastSeen: string;
  sites: string[];
}

function displayForm(lesson: string): string {
  return lesson
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.;!\s]+$/, "");
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function distillLessons(entries: JournalEntry[], skill: string): DistilledLesson[] {
  const groups = new Map<
    string,
    { forms: Map<string, number>; runs: Set<string>; passing: Set<string>; lastSeen: string; sites: Set<string> }
  >();
  for (const entry of entries) {
    if (entry.skill !== skill) continue;
    const form = displayForm(entry.lesson);
    if (form === "") continue;
    const key = form.toLowerCase();
    let group = groups.get(key);
    if (!group) {
      group = { forms: new Map(), runs: new Set(), passing: new Set(), lastSeen: "", sites: new Set() };
      groups.set(key, group);
    }
    group.forms.set(form, (group.forms.get(form) ?? 0) + 1);
    const run = JSON.stringify([entry.recorded_at, entry.test.file, entry.test.name]);
    group.runs.add(run);
    if (entry.passed) group.passing.add(run);
    if (entry.recorded_at > group.lastSeen) group.lastSeen = entry.recorded_at;
    if (entry.site) group.sites.add(entry.site);
  }
  const lessons: DistilledLesson[] = [];
  for (const group of groups.values()) {
    if (group.passing.size === 0 && group.runs.size < MIN_RUNS_WITHOUT_PASS) continue;
    // The most used spelling; ties by codepoint, so the choice never depends on journal order.
    const text = [...group.forms.entries()].sort(([a, m], [b, n]) => n - m || byText(a, b))[0]?.[0] as string;
    lessons.push({
      text,
      runs: group.runs.size,
      passingRuns: group.passing.size,
      lastSeen: group.lastSeen,
      sites: [...group.sites].sort(byText),
    });
  }
  return lessons
    .sort((a, b) => b.runs - a.runs || byText(b.lastSeen, a.lastSeen) || byText(a.text, b.text))
    .slice(0, MAX_LEARNED_LESSONS);
}

/** The skill's body without a learned section an earlier distillation wrote (up to the next `## ` heading). */
export function withoutLearned(body: string): string {
  const lines = body.split("\n");
  const start = lines.indexOf(LEARNED_HEADING);
  if (start === -1) return body;
  const next = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return [...lines.slice(0, start), ...(next === -1 ? [] : lines.slice(next))].join("\n");
}

export interface SkillBase {
  name: string;
  version: string;
  frontMatter: SkillFrontMatter;
  body: string;
}

/**
 * What a skill is improved from: the bundled skill when there is one; else the project skill
 * as it was before any distillation (its `based_on` version, its body without the learned part).
 */
export function baseOf(skill: SkillDocument, bundled: SkillDocument | undefined): SkillBase {
  const source = bundled ?? skill;
  const name = String(source.frontMatter.name);
  const basedOn = typeof source.frontMatter.based_on === "string" ? source.frontMatter.based_on : null;
  const version =
    basedOn?.startsWith(`${name}@`) && semver.valid(basedOn.slice(name.length + 1))
      ? basedOn.slice(name.length + 1)
      : String(source.frontMatter.version);
  const { based_on: _ignored, ...frontMatter } = source.frontMatter;
  return {
    name,
    version,
    frontMatter: { ...frontMatter, version } as SkillFrontMatter,
    body: withoutLearned(source.body),
  };
}

function lessonLine(lesson: DistilledLesson): string {
  const runs = `${lesson.runs} ${lesson.runs === 1 ? "run" : "runs"}`;
  const sites = lesson.sites.length ? `; ${lesson.sites.join(", ")}` : "";
  return `- ${lesson.text} (seen in ${runs}, ${lesson.passingRuns} passing; last ${lesson.lastSeen.slice(0, 10)}${sites})`;
}

/** The improved skill's text, or null when no lesson qualifies. */
export function improvedSkillText(base: SkillBase, lessons: DistilledLesson[]): string | null {
  if (lessons.length === 0) return null;
  const version = semver.inc(base.version, "minor") ?? base.version;
  const frontMatter: SkillFrontMatter = { ...base.frontMatter, version, based_on: `${base.name}@${base.version}` };
  const body = `${base.body.trimEnd()}\n\n${LEARNED_HEADING}\n\n${lessons.map(lessonLine).join("\n")}\n`;
  return renderSkill(frontMatter, body);
}
