/**
 * One test's page errors (browser/page-errors.ts feeds it), bounded and redacted, and the
 * failure they make under `failOnPageErrors`. Pure.
 */
import type { FailureKind, PageError } from "../report/run-result.js";
import type { SecretValues } from "../secrets/secret-values.js";

/** Page errors kept per test; later ones are only counted (a page logging in a loop must not fill the report). */
export const MAX_PAGE_ERRORS = 100;
/** Characters kept of one message; a page may log megabytes in one call. */
export const MAX_MESSAGE_CHARS = 2_000;
/**
 * Characters held of a message until the test ends. Redaction runs on what is held, and more is
 * held than is shown, so a secret cut in two at this boundary is past the shown part anyway.
 */
const HELD_CHARS = 4 * MAX_MESSAGE_CHARS;

/**
 * A URL's percent-escapes decoded, each run of them on its own (a malformed run stays as it is),
 * so that a secret the page sent in a query string ("p%40ss" for "p@ss") is found by redaction.
 */
export function unescapeUrl(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * One test's page errors, bounded. What it hands out (to `onAdded` as they happen, and as
 * `errors` at the end) is redacted by the secrets known at that moment.
 */
export class PageErrorLog {
  private readonly held: PageError[] = [];
  private extra = 0;

  constructor(
    private readonly secrets: SecretValues,
    private readonly onAdded: (error: PageError) => void = () => {},
  ) {}

  add(error: PageError): void {
    if (this.held.length >= MAX_PAGE_ERRORS) {
      this.extra += 1;
      return;
    }
    const held = {
      ...error,
      message: error.message.slice(0, HELD_CHARS),
      url: error.url?.slice(0, HELD_CHARS) ?? null,
    };
    this.held.push(held);
    this.onAdded(this.shown(held));
  }

  /** The kept errors, oldest first. */
  get errors(): PageError[] {
    return this.held.map((error) => this.shown(error));
  }

  /** Errors past MAX_PAGE_ERRORS: counted, not kept. */
  get omitted(): number {
    return this.extra;
  }

  /** Redacted first, then cut: cutting first could split a secret so that redaction misses its first part. */
  private shown(error: PageError): PageError {
    const redactUrl = (text: string) => this.secrets.redact(unescapeUrl(text));
    // A request's message is its method, URL and status.
    const message = error.kind === "request" ? redactUrl(error.message) : this.secrets.redact(error.message);
    return {
      ...error,
      message: clip(message, MAX_MESSAGE_CHARS),
      url: error.url === null ? null : clip(redactUrl(error.url), MAX_MESSAGE_CHARS),
    };
  }
}

/** `failOnPageErrors`: the failure of a test that would otherwise pass, when its page had errors. */
export function pageErrorsFailure(
  log: PageErrorLog,
  failOnPageErrors: boolean,
): { kind: FailureKind; message: string } | null {
  const [first] = log.errors;
  if (!failOnPageErrors || first === undefined) return null;
  const count = log.errors.length + log.omitted;
  const more = count > 1 ? ` (and ${count - 1} more)` : "";
  return {
    kind: "page_errors",
    message: `${count === 1 ? "1 error" : `${count} errors`} on the page (failOnPageErrors): ${first.kind}: ${first.message}${more}`,
  };
}
