/**
 * The page errors of one test: console errors, uncaught exceptions and rejections, and failed
 * requests, as the browser reports them through WebDriver BiDi (`log.entryAdded`,
 * `network.responseCompleted` with a status of 400 or more, `network.fetchError`).
 *
 * Everything here is page text: it is only ever stored as strings, redacted by the test's
 * secrets and cut to a bounded length, never evaluated or rendered as markup.
 */
import type { Browser } from "webdriverio";
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

/** The events this captures, as BiDi names them. */
export const PAGE_ERROR_EVENTS = ["log.entryAdded", "network.responseCompleted", "network.fetchError"] as const;

/** The parts of BiDi's log.entryAdded this reads. */
export interface LogEntry {
  type: string;
  level: string;
  text: string | null;
  timestamp: number;
  stackTrace?: { callFrames: { url: string }[] };
}

/** The parts of BiDi's network.responseCompleted and network.fetchError this reads. */
export interface NetworkEvent {
  timestamp: number;
  request: { url: string; method: string };
  response?: { status: number; statusText: string };
  errorText?: string;
}

function timeOf(timestamp: number, now: Date): string {
  const time = new Date(timestamp);
  return Number.isNaN(time.getTime()) ? now.toISOString() : time.toISOString();
}

/** A console error or an uncaught exception; null for any other log entry. */
export function fromLogEntry(entry: LogEntry, now: Date): PageError | null {
  const kind = entry.type === "javascript" ? "exception" : entry.type === "console" ? "console" : null;
  if (kind === null || (kind === "console" && entry.level !== "error")) return null;
  // The top frame's script is the page (or a script of it); code evaluated from a string has none.
  const url = entry.stackTrace?.callFrames[0]?.url || null;
  return { kind, message: entry.text ?? "", url, time: timeOf(entry.timestamp, now) };
}

/** A response with an error status; null for a successful one. */
export function fromResponse(event: NetworkEvent, now: Date): PageError | null {
  const status = event.response?.status ?? 0;
  if (status < 400) return null;
  const { method, url } = event.request;
  return { kind: "request", message: `${method} ${url} ${status}`, url, time: timeOf(event.timestamp, now) };
}

/**
 * A request that got no response. An aborted one is not an error of the page: the browser aborts
 * a page's pending requests whenever it navigates away.
 */
export function fromFetchError(event: NetworkEvent, now: Date): PageError | null {
  const reason = event.errorText ?? "failed";
  if (/ERR_ABORTED|NS_BINDING_ABORTED/.test(reason)) return null;
  const { method, url } = event.request;
  return { kind: "request", message: `${method} ${url} ${reason}`, url, time: timeOf(event.timestamp, now) };
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
    return {
      ...error,
      message: clip(this.secrets.redact(error.message), MAX_MESSAGE_CHARS),
      url: error.url === null ? null : clip(this.secrets.redact(error.url), MAX_MESSAGE_CHARS),
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

/** Runs once per key (a run's settings): an engine without BiDi is named once, not once per test. */
const told = new WeakSet<object>();

/**
 * Starts feeding `log` from the session's browser, and returns what stops it (before the
 * session closes). A session without WebDriver BiDi (WebKitWebDriver), or one refusing the
 * subscription, captures nothing: that is said once per `noticeKey` on stderr, and never fails a test.
 */
export async function capturePageErrors(
  browser: Browser,
  log: PageErrorLog,
  noticeKey: object,
): Promise<() => Promise<void>> {
  const unavailable = (why: string): (() => Promise<void>) => {
    if (!told.has(noticeKey)) {
      told.add(noticeKey);
      process.stderr.write(`obs: page errors are not captured: ${why}\n`);
    }
    return async () => {};
  };
  if (!browser.isBidi) return unavailable("the browser session has no WebDriver BiDi (engine_a and engine_b have it)");
  // webdriverio subscribes to some of these events for itself: ending this subscription (by its
  // id, not by event names) leaves its own in place.
  const subscribed = await browser.sessionSubscribe({ events: [...PAGE_ERROR_EVENTS] }).catch((error: Error) => error);
  if (subscribed instanceof Error) return unavailable(`the browser refused the subscription (${subscribed.message})`);
  const now = () => new Date();
  const onLog = (entry: LogEntry) => {
    const error = fromLogEntry(entry, now());
    if (error) log.add(error);
  };
  const onResponse = (event: NetworkEvent) => {
    const error = fromResponse(event, now());
    if (error) log.add(error);
  };
  const onFetchError = (event: NetworkEvent) => {
    const error = fromFetchError(event, now());
    if (error) log.add(error);
  };
  browser.on("log.entryAdded", onLog);
  browser.on("network.responseCompleted", onResponse);
  browser.on("network.fetchError", onFetchError);
  return async () => {
    browser.off("log.entryAdded", onLog);
    browser.off("network.responseCompleted", onResponse);
    browser.off("network.fetchError", onFetchError);
    // A browser that is already gone has no subscription left to end.
    await browser.sessionUnsubscribe({ subscriptions: [subscribed.subscription] }).catch(() => {});
  };
}
