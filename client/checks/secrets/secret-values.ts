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
/** How a hidden value (hide) is shown. */
const HIDDEN = "***";

/**
 * The shortest value obs accepts as a secret. Redaction replaces a value wherever it occurs, so
 * a short one (`ok`, `pass`) would also rewrite ordinary words in every record obs writes.
 */
export const MIN_SECRET_LENGTH = 4;
export const SECRET_TOO_SHORT = "a secret shorter than 4 characters cannot be told apart from ordinary text";

/** Where the page snapshot cuts a field's value and an element's label (snapshot-script.ts). */
const SNAPSHOT_CUT = 120;

/** Secret names: what `%name%` may hold. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const PLACEHOLDER = /%([A-Za-z_][A-Za-z0-9_.-]{0,63})%/g;

/**
 * Every form in which obs itself may write a value, so that each is redacted, not only the value
 * as typed. Redaction runs on text obs has already formatted, so the forms are those the
 * formatting produces:
 * - JSON-escaped (`"` as `\"`, `\` as `\\`, a newline as `\n`): evidence (`typed "…"`), the
 *   snapshot's labels, values and title, and the reports' JSON are built with JSON.stringify;
 * - squashed (each run of white space as one space, trimmed): the snapshot squashes labels and
 *   field values, so a multi-line or double-spaced value would not otherwise match;
 * - as the snapshot squashes the page's visible text (runs of spaces and tabs as one space, blank
 *   lines dropped), which keeps line breaks;
 * - the squashed form's first 120 characters: the snapshot cuts values and labels there. These
 *   forms are registered rather than redacting before the cut because the cut happens in the
 *   page, which must never be handed the secrets;
 * - URL-encoded (encodeURIComponent, encodeURI, form encoding with spaces as `+`, and as a URL
 *   parser writes it in a query or a path, which leaves `\` or turns it into `/`): a value the
 *   page or the spec put in a URL reaches step URLs, the snapshot's `Page:` line and failure
 *   evidence so.
 * Derived forms shorter than MIN_SECRET_LENGTH are left out (a value of spaces around one letter
 * squashes to that letter).
 */
export function formsOf(value: string): string[] {
  const squashed = value.replace(/\s+/g, " ").trim();
  const pageText = value.replace(/[ \t]+/g, " ").replace(/\n\s*\n+/g, "\n");
  const bases = [value, squashed, pageText];
  if (squashed.length > SNAPSHOT_CUT) bases.push(squashed.slice(0, SNAPSHOT_CUT));
  const forms = new Set<string>();
  for (const base of bases) {
    forms.add(base);
    forms.add(JSON.stringify(base).slice(1, -1));
    forms.add(encodeURIComponent(base));
    forms.add(encodeURI(base));
    forms.add(new URLSearchParams({ v: base }).toString().slice(2));
    for (const form of asUrlParts(base)) forms.add(form);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/** `text` as a browser writes it in a URL's query and in its path (WHATWG URL serialisation). */
function asUrlParts(text: string): string[] {
  const url = new URL("http://obs.invalid/");
  url.search = text;
  const query = url.search.slice(1);
  url.pathname = text;
  return [query, url.pathname.slice(1)];
}

/** What a page's input mask puts between the characters of a value: spaces, dashes, dots, slashes, brackets. */
const MASK_SEPARATOR = "[\\s\\-./()+_]{0,3}";
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * A value as a page may show it after reformatting what was typed (a card number grouped in
 * fours, a phone number bracketed, a code upper-cased): its letters and digits in order, any
 * case, with up to three mask separators between each two and none of its own letters or
 * digits on either side. Null for a value with fewer than MIN_SECRET_LENGTH letters and digits.
 * Pure.
 */
export function maskedFormOf(value: string): RegExp | null {
  const significant = [...value].filter((ch) => LETTER_OR_DIGIT.test(ch));
  if (significant.length < MIN_SECRET_LENGTH) return null;
  const body = significant.map(escapeRegExp).join(MASK_SEPARATOR);
  return new RegExp(`(?<![\\p{L}\\p{N}%])[(+]?${body}(?![\\p{L}\\p{N}%])`, "giu");
}

export class SecretValues {
  /** Placeholder text by each form of each value (formsOf), longest first when redacting (so a value inside another is not split). */
  private readonly byValue = new Map<string, string>();
  /** Each value's masked form (maskedFormOf) and its placeholder, redacted after the exact forms. */
  private readonly masked: { form: RegExp; placeholder: string }[] = [];
  private readonly byName = new Map<string, string>();
  /** What redact() looks for; rebuilt when a value is added. */
  private pattern: RegExp | null = null;

  /**
   * Adds a spec's secrets. Throws on a name that is not a plain identifier, on a value shorter
   * than MIN_SECRET_LENGTH (an unset environment variable read as "" included), or on a name
   * given two different values in one test (the placeholder would then mean two things).
   */
  add(secrets: Record<string, unknown> | undefined): void {
    if (secrets === undefined) return;
    for (const [name, value] of Object.entries(secrets)) {
      if (!NAME.test(name)) throw new Error(`secret name "${name}" must be letters, digits, _ . or -`);
      if (typeof value !== "string") throw new Error(`secret "${name}" must be a string, not ${typeof value}`);
      if (value.length < MIN_SECRET_LENGTH) throw new Error(`secret "${name}": ${SECRET_TOO_SHORT}`);
      const known = this.byName.get(name);
      if (known !== undefined && known !== value) {
        throw new Error(`secret "${name}" was given two different values in one test`);
      }
      this.byName.set(name, value);
      for (const form of formsOf(value)) this.byValue.set(form, `%${name}%`);
      this.addMasked(value, `%${name}%`);
      this.pattern = null;
    }
  }

  /**
   * Learns a value the agent typed into a password field; returns whether it was learned. A value
   * shorter than MIN_SECRET_LENGTH is not: redacting it would rewrite ordinary words everywhere
   * (a password "abc" would garble "abcd"), and a password that short protects little anyway.
   */
  learnTyped(value: string): boolean {
    if (value.length < MIN_SECRET_LENGTH) return false;
    for (const form of formsOf(value)) if (!this.byValue.has(form)) this.byValue.set(form, TYPED_SECRET);
    this.addMasked(value, TYPED_SECRET);
    this.pattern = null;
    return true;
  }

  /**
   * Hides a value the model must never see nor be able to ask for (the password of the base URL,
   * which only the browser is given): redacted as `***`, with no placeholder `reveal` turns back
   * into it. A value shorter than MIN_SECRET_LENGTH is not learned, as in learnTyped.
   */
  hide(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    for (const form of formsOf(value)) this.byValue.set(form, HIDDEN);
    this.pattern = null;
  }

  private addMasked(value: string, placeholder: string): void {
    const form = maskedFormOf(value);
    if (form !== null && !this.masked.some((known) => known.form.source === form.source)) {
      this.masked.push({ form, placeholder });
    }
  }

  /** Whether any value is known. */
  get empty(): boolean {
    return this.byValue.size === 0;
  }

  /** `text` with each `%name%` of a known secret replaced by its value: for the browser only. */
  reveal(text: string): string {
    return text.replace(PLACEHOLDER, (whole, name: string) => this.byName.get(name) ?? whole);
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
    let redacted = text.replace(this.pattern, (match) =>
      placeholders.has(match) ? match : (this.byValue.get(match) ?? match),
    );
    // Then the forms a page's input mask made of a value, which no exact form matches.
    for (const { form, placeholder } of this.masked) redacted = redacted.replace(form, placeholder);
    return redacted;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
