/**
 * The secret values of one test, and the two directions they are used in. Pure.
 *
 * A spec names its secrets (`agent.act("sign in with %password%", { secrets: { password } })`):
 * the model reads and writes `%password%`, `reveal` turns it into the value only where the
 * browser receives it, and `redact` turns every known value back into its placeholder in
 * whatever obs shows the model or writes down (reports, progress lines, the journal, the
 * action cache, telemetry). A value the agent types into a password field without a name is
 * learned too (`learnTyped`) and redacted as `%typed_secret%`.
 */

/** How a value typed into a password field without a name is shown. */
export const TYPED_SECRET = "%typed_secret%";

/** Secret names: what `%name%` may hold. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const PLACEHOLDER = /%([A-Za-z_][A-Za-z0-9_.-]{0,63})%/g;

export class SecretValues {
  /** Placeholder text by value, longest value first when redacting (so a value inside another is not split). */
  private readonly byValue = new Map<string, string>();
  private readonly byName = new Map<string, string>();
  /** What redact() looks for; rebuilt when a value is added. */
  private pattern: RegExp | null = null;

  /**
   * Adds a spec's secrets. Throws on a name that is not a plain identifier, or on a name given
   * two different values in one test (the placeholder would then mean two things).
   */
  add(secrets: Record<string, unknown> | undefined): void {
    if (secrets === undefined) return;
    for (const [name, value] of Object.entries(secrets)) {
      if (!NAME.test(name)) throw new Error(`secret name "${name}" must be letters, digits, _ . or -`);
      if (typeof value !== "string") throw new Error(`secret "${name}" must be a string, not ${typeof value}`);
      const known = this.byName.get(name);
      if (known !== undefined && known !== value) {
        throw new Error(`secret "${name}" was given two different values in one test`);
      }
      this.byName.set(name, value);
      if (value !== "") this.byValue.set(value, `%${name}%`);
      this.pattern = null;
    }
  }

  /** Learns a value the agent typed into a password field. */
  learnTyped(value: string): void {
    if (value !== "" && !this.byValue.has(value)) this.byValue.set(value, TYPED_SECRET);
    this.pattern = null;
  }

  /** Whether any value is known. */
  get empty(): boolean {
    return this.byValue.size === 0;
  }

  /** `text` with each `%name%` of a known secret replaced by its value: for the browser only. */
  reveal(text: string): string {
    return text.replace(PLACEHOLDER, (whole, name: string) => this.byName.get(name) ?? whole);
  }

  /** Whether `text` names a known secret. */
  names(text: string): boolean {
    for (const match of text.matchAll(PLACEHOLDER)) if (this.byName.has(match[1] as string)) return true;
    return false;
  }

  /**
   * `text` with every known value replaced by its placeholder, in one pass: a placeholder of a
   * known secret already in the text is kept whole, so a value that is part of a placeholder
   * (`pass` in `%password%`) never garbles it, and redacting twice changes nothing.
   */
  redact(text: string): string {
    if (this.byValue.size === 0) return text;
    const placeholders = new Set(this.byValue.values());
    if (!this.pattern) {
      const values = [...this.byValue.keys()].sort((a, b) => b.length - a.length);
      this.pattern = new RegExp([...placeholders, ...values].map(escapeRegExp).join("|"), "g");
    }
    return text.replace(this.pattern, (match) =>
      placeholders.has(match) ? match : (this.byValue.get(match) ?? match),
    );
  }

  /** A copy of `value` (any JSON-like data) with every string redacted. */
  redactDeep<T>(value: T): T {
    if (this.byValue.size === 0) return value;
    return redactWith(value, (text) => this.redact(text)) as T;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function redactWith(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactWith(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactWith(item, redact)]));
  }
  return value;
}
