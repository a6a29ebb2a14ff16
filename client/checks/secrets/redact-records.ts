/**
 * Redaction of each kind of record obs writes down, field by field. Pure.
 *
 * Only free text is redacted: instructions, tool arguments' values, the model's text, evidence,
 * URLs, quotes, assertions, failure messages, page errors, lessons. Ids, names, file paths,
 * kinds, statuses, tools and times are never touched: they are obs's own words, and rewriting
 * them (a secret "test" turning `tests/login.obs.ts` into `%password%s/login.obs.ts`) would
 * break the reports and every lookup by id, and hide nothing.
 */
import type { StepRecord } from "../agent/agent-loop.js";
import type { LessonDraft } from "../agent/runner-lessons.js";
import type { CacheEntry } from "../cache/action-cache.js";
import type { ModelMessage } from "../providers/model-provider.js";
import type {
  AttemptRecord,
  CheckRecord,
  FailureEvidence,
  FailureKind,
  PageError,
  TestResult,
} from "../report/run-result.js";

/** What redaction needs: SecretValues has it. */
export interface Redactor {
  redact(text: string): string;
}

/** Every string inside a tool call's arguments, at any depth; the keys are the tool's own. */
export function redactArgs(args: Record<string, unknown>, secrets: Redactor): Record<string, unknown> {
  return redactValue(args, secrets) as Record<string, unknown>;
}

function redactValue(value: unknown, secrets: Redactor): unknown {
  if (typeof value === "string") return secrets.redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets)]));
  }
  return value;
}

function redactNullable(text: string | null, secrets: Redactor): string | null {
  return text === null ? null : secrets.redact(text);
}

export function redactStep(step: StepRecord, secrets: Redactor): StepRecord {
  return {
    ...step,
    instruction: secrets.redact(step.instruction),
    args: redactArgs(step.args, secrets),
    target: step.target && { ...step.target, label: secrets.redact(step.target.label) },
    text: redactNullable(step.text, secrets),
    evidence: secrets.redact(step.evidence),
    url: secrets.redact(step.url),
  };
}

export function redactCheck(check: CheckRecord, secrets: Redactor): CheckRecord {
  return {
    ...check,
    assertion: secrets.redact(check.assertion),
    evidence: secrets.redact(check.evidence),
    quote: redactNullable(check.quote, secrets),
  };
}

export function redactLesson(lesson: LessonDraft, secrets: Redactor): LessonDraft {
  return {
    ...lesson,
    lesson: secrets.redact(lesson.lesson),
    url: secrets.redact(lesson.url),
    instruction: secrets.redact(lesson.instruction),
  };
}

/** A cache entry as it may be written to action-cache.json; its key, test id, kind and times stay as they are. */
export function redactCacheEntry(entry: CacheEntry, secrets: Redactor): CacheEntry {
  return {
    ...entry,
    instruction: secrets.redact(entry.instruction),
    actions: entry.actions.map((action) => ({
      ...action,
      args: redactArgs(action.args, secrets),
      target: action.target && { ...action.target, label: secrets.redact(action.target.label) },
    })),
    result: secrets.redact(entry.result),
    ...(entry.quote === undefined ? {} : { quote: entry.quote === null ? null : secrets.redact(entry.quote) }),
  };
}

/** The conversation sent to the model: contents and call arguments; call ids and tool names are obs's. */
export function redactMessages(messages: ModelMessage[], secrets: Redactor): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    if (message.role === "assistant") {
      return {
        ...message,
        content: redactNullable(message.content, secrets),
        toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: redactArgs(call.arguments, secrets) })),
      };
    }
    return { ...message, content: secrets.redact(message.content) };
  });
}

export function redactPageError(error: PageError, secrets: Redactor): PageError {
  return { ...error, message: secrets.redact(error.message), url: redactNullable(error.url, secrets) };
}

function redactFailure(
  failure: { kind: FailureKind; message: string } | null,
  secrets: Redactor,
): { kind: FailureKind; message: string } | null {
  return failure && { ...failure, message: secrets.redact(failure.message) };
}

function redactEvidence(evidence: FailureEvidence | null, secrets: Redactor): FailureEvidence | null {
  // The screenshot and snapshot are paths obs chose; the snapshot file was redacted when written.
  return evidence && { ...evidence, url: redactNullable(evidence.url, secrets) };
}

function redactAttempt(attempt: AttemptRecord, secrets: Redactor): AttemptRecord {
  return {
    ...attempt,
    failure: redactFailure(attempt.failure, secrets),
    ...(attempt.evidence === undefined ? {} : { evidence: redactEvidence(attempt.evidence, secrets) }),
  };
}

export function redactTestResult(result: TestResult, secrets: Redactor): TestResult {
  return {
    ...result,
    failure: redactFailure(result.failure, secrets),
    steps: result.steps.map((step) => redactStep(step, secrets)),
    checks: result.checks.map((check) => redactCheck(check, secrets)),
    pageErrors: result.pageErrors.map((error) => redactPageError(error, secrets)),
    failureEvidence: redactEvidence(result.failureEvidence, secrets),
    attempts: result.attempts.map((attempt) => redactAttempt(attempt, secrets)),
  };
}
