/**
 * The learning journal: `<project>/.obs/skills/journal.ndjson`, one JSON entry per line
 * (schemas/skills/journal-entry.json). Runs append; `obs skills improve` reads.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendPrivateFile } from "../../shared/private-append.js";
import { PRIVATE_DIR_MODE } from "../../shared/state-dir.js";
import { schemaValidator } from "../validation/schema-validator.js";
import { projectSkillsDir } from "./skill-catalog.js";

export const JOURNAL_SCHEMA_VERSION = "obs.skill-journal/v1";
export const JOURNAL_FILE = "journal.ndjson";
/** Lessons longer than this are cut, so one entry can never bloat a prompt-sized skill. */
export const MAX_LESSON_LENGTH = 500;

export type LessonKind = "lesson" | "resolved_after_retries" | "stall";

export interface JournalEntry {
  schema_version: typeof JOURNAL_SCHEMA_VERSION;
  recorded_at: string;
  skill: string | null;
  lesson: string;
  source: "agent" | "runner";
  kind: LessonKind;
  site: string | null;
  test: { file: string; name: string };
  step: number;
  instruction: string;
  passed: boolean;
}

export function journalPath(projectDir: string): string {
  return join(projectSkillsDir(projectDir), JOURNAL_FILE);
}

/**
 * Throws when lessons could not be appended to the project's journal (a link, a FIFO, another
 * user's file): checked before a run, which would otherwise fail after its first test, with
 * its model tokens spent and no report written.
 */
export function checkJournal(projectDir: string): void {
  const path = journalPath(projectDir);
  let present = true;
  try {
    lstatSync(path);
  } catch {
    present = false;
  }
  if (present) appendPrivateFile(path, "");
}

/** One write per test: each line is complete, so concurrent runs never interleave halves. */
export function appendJournal(projectDir: string, entries: JournalEntry[]): void {
  if (entries.length === 0) return;
  mkdirSync(projectSkillsDir(projectDir), { recursive: true, mode: PRIVATE_DIR_MODE });
  appendPrivateFile(journalPath(projectDir), entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
}

export interface JournalRead {
  entries: JournalEntry[];
  /** Lines that are not valid entries: skipped, and reported. */
  problems: { line: number; message: string }[];
}

export function readJournal(projectDir: string): JournalRead {
  const path = journalPath(projectDir);
  if (!existsSync(path)) return { entries: [], problems: [] };
  const validate = schemaValidator("skills", "journal-entry.json");
  const entries: JournalEntry[] = [];
  const problems: JournalRead["problems"] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, index) => {
      if (text.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        problems.push({ line: index + 1, message: "not JSON" });
        return;
      }
      if (!validate(value)) {
        const first = validate.errors?.[0];
        problems.push({
          line: index + 1,
          message: `${first?.instancePath || "(entry)"} ${first?.message ?? "invalid"}`,
        });
        return;
      }
      entries.push(value as JournalEntry);
    });
  return { entries, problems };
}
