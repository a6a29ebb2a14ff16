/**
 * Where the agent meets a test's secrets (client/checks/secrets/secret-values.ts). Pure.
 * The model reads and writes `%name%`; only the arguments handed to the browser are revealed,
 * and whatever leaves the agent (steps, checks, lessons, cache entries) is redacted.
 */
import type { SecretValues } from "../secrets/secret-values.js";
import { TYPED_SECRET } from "../secrets/secret-values.js";
import type { StepRecord } from "./agent-loop.js";
import type { RawElement } from "./snapshot-script.js";

/** The arguments whose text reaches the page: typed text, a chosen option, a URL, a text waited for. */
const REVEALED = ["text", "option", "url"] as const;

/** The call's arguments as the browser must receive them: each `%name%` of a known secret replaced by its value. */
export function revealArgs(args: Record<string, unknown>, secrets: SecretValues): Record<string, unknown> {
  const revealed = { ...args };
  for (const key of REVEALED) {
    const value = revealed[key];
    if (typeof value === "string") revealed[key] = secrets.reveal(value);
  }
  return revealed;
}

export function isPasswordField(element: RawElement | undefined): boolean {
  return element?.tag === "input" && (element.type ?? "").toLowerCase() === "password";
}

/**
 * Learns a value typed into a password field, so every record of it is redacted. Returns true
 * when the value is no named secret of the spec (it is then shown as %typed_secret%, which no
 * replay could turn back into the value).
 */
export function learnPassword(value: string, secrets: SecretValues): boolean {
  if (value === "") return false;
  secrets.learnTyped(value);
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
  const clean = secrets.redactDeep(step);
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
  private readonly records: object[] = [];

  keep<T extends object>(record: T): T {
    this.records.push(record);
    return record;
  }

  redactAll(secrets: SecretValues): void {
    for (const record of this.records) Object.assign(record, secrets.redactDeep(record));
  }
}
