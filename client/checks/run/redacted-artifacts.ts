/**
 * What a test leaves behind besides its reports, made safe by its secrets: the skills journal's
 * entries and the action cache's. Pure.
 */
import { JOURNAL_SCHEMA_VERSION, type JournalEntry } from "../../skills/skill-journal.js";
import { type LessonDraft, siteOf } from "../agent/runner-lessons.js";
import type { CacheEntry } from "../cache/action-cache.js";
import type { TestRef } from "../report/run-result.js";
import { redactCacheEntry, redactLesson } from "../secrets/redact-records.js";
import { type SecretValues, TYPED_SECRET } from "../secrets/secret-values.js";

/**
 * A finished attempt's lessons as journal entries: now it is known whether it passed. Every
 * lesson's text, URL and instruction is redacted, so no secret value can reach the journal, and
 * so none can reach a skill distilled from it; the test's file and name are its own.
 */
export function journalEntries(
  lessons: LessonDraft[],
  test: TestRef,
  passed: boolean,
  at: Date,
  secrets?: SecretValues,
): JournalEntry[] {
  const clean = secrets ? lessons.map((lesson) => redactLesson(lesson, secrets)) : lessons;
  return clean.map(
    (lesson): JournalEntry => ({
      schema_version: JOURNAL_SCHEMA_VERSION,
      recorded_at: at.toISOString(),
      skill: lesson.skill,
      lesson: lesson.lesson,
      source: lesson.source,
      kind: lesson.kind,
      site: siteOf(lesson.url),
      test: { file: test.file, name: test.name },
      step: lesson.step,
      instruction: lesson.instruction,
      passed,
    }),
  );
}

/**
 * A passing attempt's cache entries as they may be written to action-cache.json: redacted. An
 * entry that held a value typed into a password field without a name is left out: it would
 * replay `%typed_secret%`, which nothing can turn back into the value, so the model answers it
 * each run instead. A named secret's `%name%` stays: the test names it again on the next run.
 */
export function cacheable(drafts: CacheEntry[], secrets: SecretValues): CacheEntry[] {
  return drafts
    .map((entry) => redactCacheEntry(entry, secrets))
    .filter((entry) => !JSON.stringify(entry).includes(TYPED_SECRET));
}
