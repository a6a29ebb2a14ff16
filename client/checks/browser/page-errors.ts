/**
 * The page errors of one test: console errors, uncaught exceptions and rejections, and failed
 * requests, as the browser reports them through WebDriver BiDi (`log.entryAdded`,
 * `network.responseCompleted` with a status of 400 or more, `network.fetchError`).
 *
 * Everything here is page text: it is only ever kept as strings (page-error-log.ts redacts and
 * bounds it), never evaluated or rendered as markup.
 */
import type { Browser } from "webdriverio";
import type { PageError } from "../report/run-result.js";
import type { PageErrorLog } from "./page-error-log.js";

/** The events this captures, as BiDi names them; requests sent are followed to know which are still in flight. */
export const PAGE_ERROR_EVENTS = [
  "log.entryAdded",
  "network.beforeRequestSent",
  "network.responseCompleted",
  "network.fetchError",
] as const;
/**
 * How long the end of a test waits for the page's requests still in flight. The browser tells
 * of a finished request a moment after the page sent it, so a test ending right after a click
 * would otherwise lose the request that click made; a request that never ends (a long poll)
 * costs this much once.
 */
export const SETTLE_MS = 1_000;

/** The parts of BiDi's log.entryAdded this reads. */
export interface LogEntry {
  type: string;
  level: string;
  text: string | null;
  timestamp: number;
  stackTrace?: { callFrames: { url: string }[] };
}

/** The parts of BiDi's network.beforeRequestSent, responseCompleted and fetchError events this reads. */
export interface NetworkEvent {
  timestamp: number;
  request: { request: string; url: string; method: string };
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
  settleMs = SETTLE_MS,
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
  const inFlight = new Set<string>();
  let settled = () => {};
  const ended = (event: NetworkEvent) => {
    inFlight.delete(event.request.request);
    if (inFlight.size === 0) settled();
  };
  const onLog = (entry: LogEntry) => {
    const error = fromLogEntry(entry, now());
    if (error) log.add(error);
  };
  const onRequest = (event: NetworkEvent) => {
    inFlight.add(event.request.request);
  };
  const onResponse = (event: NetworkEvent) => {
    const error = fromResponse(event, now());
    if (error) log.add(error);
    ended(event);
  };
  const onFetchError = (event: NetworkEvent) => {
    const error = fromFetchError(event, now());
    if (error) log.add(error);
    ended(event);
  };
  browser.on("log.entryAdded", onLog);
  browser.on("network.beforeRequestSent", onRequest);
  browser.on("network.responseCompleted", onResponse);
  browser.on("network.fetchError", onFetchError);
  return async () => {
    if (inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        settled = resolve;
        timer = setTimeout(resolve, settleMs);
      });
      clearTimeout(timer);
    }
    browser.off("log.entryAdded", onLog);
    browser.off("network.beforeRequestSent", onRequest);
    browser.off("network.responseCompleted", onResponse);
    browser.off("network.fetchError", onFetchError);
    // A browser that is already gone has no subscription left to end.
    await browser.sessionUnsubscribe({ subscriptions: [subscribed.subscription] }).catch(() => {});
  };
}
