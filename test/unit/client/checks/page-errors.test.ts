import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { XMLParser } from "fast-xml-parser";
import type { Browser } from "webdriverio";
import {
  MAX_MESSAGE_CHARS,
  MAX_PAGE_ERRORS,
  PageErrorLog,
  pageErrorsFailure,
} from "../../../../client/checks/browser/page-error-log.js";
import {
  capturePageErrors,
  fromFetchError,
  fromLogEntry,
  fromResponse,
  type LogEntry,
  type NetworkEvent,
  PAGE_ERROR_EVENTS,
} from "../../../../client/checks/browser/page-errors.js";
import { testLine } from "../../../../client/checks/report/console-summary.js";
import { junitXml } from "../../../../client/checks/report/junit-report.js";
import { pageErrorLine, testFinishLine } from "../../../../client/checks/report/progress-line.js";
import type { PageError, RunReport, TestResult } from "../../../../client/checks/report/run-result.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";
import { packagePath } from "../../../../shared/package-root.js";
import { compileSchema } from "../../../helpers/schema-validator.js";

const NOW = new Date("2026-11-25T10:00:00.000Z");
const PAGE = "http://127.0.0.1:4000/shop.html";
const AT = Date.parse("2026-11-25T09:59:59.000Z");

const consoleEntry = (level: string, text: string): LogEntry => ({
  type: "console",
  level,
  text,
  timestamp: AT,
  stackTrace: { callFrames: [{ url: PAGE }] },
});
const exceptionEntry = (text: string, url = PAGE): LogEntry => ({
  type: "javascript",
  level: "error",
  text,
  timestamp: AT,
  stackTrace: { callFrames: [{ url }] },
});
let requests = 0;
const response = (method: string, url: string, status: number, request = `r${++requests}`): NetworkEvent => ({
  timestamp: AT,
  request: { request, method, url },
  response: { status, statusText: "" },
});
const fetchError = (url: string, errorText: string, request = `r${++requests}`): NetworkEvent => ({
  timestamp: AT,
  request: { request, method: "GET", url },
  errorText,
});
const pageError = (message: string, kind: PageError["kind"] = "console"): PageError => ({
  kind,
  message,
  url: PAGE,
  time: NOW.toISOString(),
});

describe("page errors: what the browser reports", () => {
  it("keeps console errors and uncaught exceptions with their script's URL, and nothing else the log has", () => {
    expect(fromLogEntry(consoleEntry("error", "checkout: no payment method on file"), NOW)).to.deep.equal({
      kind: "console",
      message: "checkout: no payment method on file",
      url: PAGE,
      time: "2026-11-25T09:59:59.000Z",
    });
    expect(fromLogEntry(consoleEntry("warn", "deprecated"), NOW)).to.equal(null);
    expect(fromLogEntry(consoleEntry("info", "hello"), NOW)).to.equal(null);
    expect(fromLogEntry({ ...consoleEntry("error", "x"), type: "network" }, NOW)).to.equal(null);
    expect(fromLogEntry(exceptionEntry("TypeError: Cannot read properties of undefined"), NOW)).to.deep.include({
      kind: "exception",
      message: "TypeError: Cannot read properties of undefined",
      url: PAGE,
    });
    // Code evaluated from a string has no script URL; a missing text is an empty message, not "null".
    expect(
      fromLogEntry({ ...exceptionEntry("Uncaught (in promise) Error: nope", ""), text: null }, NOW),
    ).to.deep.include({ message: "", url: null });
    expect(fromLogEntry({ ...exceptionEntry("x"), stackTrace: undefined, timestamp: Number.NaN }, NOW)).to.deep.include(
      {
        url: null,
        time: NOW.toISOString(),
      },
    );
  });

  it("names a request that failed or answered 4xx/5xx by method, URL and status, but not one aborted by a navigation", () => {
    expect(fromResponse(response("POST", "http://127.0.0.1:4000/api/checkout", 404), NOW)).to.deep.equal({
      kind: "request",
      message: "POST http://127.0.0.1:4000/api/checkout 404",
      url: "http://127.0.0.1:4000/api/checkout",
      time: "2026-11-25T09:59:59.000Z",
    });
    expect(fromResponse(response("GET", "http://x/a", 503), NOW)?.message).to.equal("GET http://x/a 503");
    expect(fromResponse(response("GET", "http://x/a", 200), NOW)).to.equal(null);
    expect(fromResponse(response("GET", "http://x/a", 304), NOW)).to.equal(null);
    expect(fromFetchError(fetchError("http://127.0.0.1:1/x", "net::ERR_CONNECTION_REFUSED"), NOW)).to.deep.include({
      kind: "request",
      message: "GET http://127.0.0.1:1/x net::ERR_CONNECTION_REFUSED",
    });
    expect(fromFetchError(fetchError("http://x/slow", "net::ERR_ABORTED"), NOW)).to.equal(null);
    expect(fromFetchError(fetchError("http://x/slow", "NS_BINDING_ABORTED"), NOW)).to.equal(null);
  });
});

describe("page errors: one test's log", () => {
  it("keeps the first 100, counts the rest, and tells only of those it keeps", () => {
    const told: PageError[] = [];
    const log = new PageErrorLog(new SecretValues(), (error) => told.push(error));
    for (let i = 0; i < MAX_PAGE_ERRORS + 7; i++) log.add(pageError(`error ${i}`));
    expect(log.errors).to.have.length(MAX_PAGE_ERRORS);
    expect(log.errors[99]?.message).to.equal("error 99");
    expect(log.omitted).to.equal(7);
    expect(told).to.have.length(MAX_PAGE_ERRORS);
  });

  it("redacts every secret from messages and URLs, including those learned after the error came", () => {
    const secrets = new SecretValues();
    secrets.add({ token: "s3cr3t-token" });
    const told: PageError[] = [];
    const log = new PageErrorLog(secrets, (error) => told.push(error));
    log.add({ ...pageError("login failed for s3cr3t-token"), url: "http://x/login?t=s3cr3t-token" });
    log.add(pageError("echo lovelace"));
    expect(told[0]).to.deep.include({ message: "login failed for %token%", url: "http://x/login?t=%token%" });
    // The progress line already went out; the report, written at the end, knows the typed password too.
    secrets.learnTyped("lovelace");
    expect(log.errors.map((error) => error.message)).to.deep.equal(["login failed for %token%", "echo %typed_secret%"]);
    expect(JSON.stringify(log.errors)).not.to.include("s3cr3t").and.not.to.include("lovelace");
  });

  it("redacts a secret a page sent percent-encoded in a request's URL", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "p@ss wörd" });
    const log = new PageErrorLog(secrets);
    const url = `http://x/login?user=ada&password=${encodeURIComponent("p@ss wörd")}&bad=%E0%A4%A`;
    log.add({ ...pageError(`GET ${url} 401`, "request"), url });
    log.add(pageError("a literal %20 in a console message stays"));
    const [request, logged] = log.errors;
    expect(request?.message).to.equal("GET http://x/login?user=ada&password=%password%&bad=%E0%A4%A 401");
    expect(request?.url).to.equal("http://x/login?user=ada&password=%password%&bad=%E0%A4%A");
    expect(logged?.message).to.equal("a literal %20 in a console message stays");
  });

  it("cuts a long message after redacting it, so a secret across the cut never shows in part", () => {
    const secret = "abcdefghijklmnopqrstuvwxyz0123456789";
    const secrets = new SecretValues();
    secrets.add({ key: secret });
    const log = new PageErrorLog(secrets);
    // The secret starts just before the cut and runs past it.
    log.add(pageError(`${"x".repeat(MAX_MESSAGE_CHARS - 10)}${secret}${"y".repeat(50_000)}`));
    const [kept] = log.errors;
    expect(kept?.message).to.have.length(MAX_MESSAGE_CHARS + 1);
    expect(kept?.message.endsWith("…")).to.equal(true);
    expect(kept?.message).not.to.include("abcdefghij");
    expect(kept?.message).to.include("%key%");
  });

  it("fails a test only with failOnPageErrors and at least one error, naming the first and counting the rest", () => {
    const log = new PageErrorLog(new SecretValues());
    expect(pageErrorsFailure(log, true)).to.equal(null);
    log.add(pageError("checkout: no payment method on file"));
    expect(pageErrorsFailure(log, false)).to.equal(null);
    expect(pageErrorsFailure(log, true)).to.deep.equal({
      kind: "page_errors",
      message: "1 error on the page (failOnPageErrors): console: checkout: no payment method on file",
    });
    log.add(pageError("TypeError: x", "exception"));
    expect(pageErrorsFailure(log, true)?.message).to.equal(
      "2 errors on the page (failOnPageErrors): console: checkout: no payment method on file (and 1 more)",
    );
  });
});

/** A webdriverio browser as far as the capture uses it. */
class FakeBrowser extends EventEmitter {
  readonly subscribed: string[][] = [];
  readonly unsubscribed: string[][] = [];
  constructor(
    readonly isBidi: boolean,
    private readonly refuse = false,
  ) {
    super();
  }
  async sessionSubscribe({ events }: { events: string[] }): Promise<{ subscription: string }> {
    if (this.refuse) throw new Error("unknown command");
    this.subscribed.push(events);
    return { subscription: "sub-1" };
  }
  async sessionUnsubscribe({ subscriptions }: { subscriptions: string[] }): Promise<Record<string, never>> {
    this.unsubscribed.push(subscriptions);
    return {};
  }
  asBrowser(): Browser {
    return this as unknown as Browser;
  }
}

describe("page errors: the capture on a session", () => {
  let stderr: string[];
  let write: typeof process.stderr.write;
  beforeEach(() => {
    stderr = [];
    write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = write;
  });

  it("subscribes to the log and network events, and leaves no listener or subscription when stopped", async () => {
    const browser = new FakeBrowser(true);
    const log = new PageErrorLog(new SecretValues());
    const stop = await capturePageErrors(browser.asBrowser(), log, {});
    expect(browser.subscribed).to.deep.equal([[...PAGE_ERROR_EVENTS]]);
    browser.emit("log.entryAdded", consoleEntry("error", "checkout: no payment method on file"));
    browser.emit("log.entryAdded", consoleEntry("log", "fine"));
    browser.emit("log.entryAdded", exceptionEntry("TypeError: boom"));
    browser.emit("network.responseCompleted", response("GET", `${PAGE}`, 200));
    browser.emit("network.responseCompleted", response("POST", "http://127.0.0.1:4000/api/checkout", 404));
    browser.emit("network.fetchError", fetchError("http://127.0.0.1:1/x", "net::ERR_CONNECTION_REFUSED"));
    await stop();
    expect(browser.unsubscribed).to.deep.equal([["sub-1"]]);
    for (const event of PAGE_ERROR_EVENTS) expect(browser.listenerCount(event), event).to.equal(0);
    // What the page does after the test is not the test's.
    browser.emit("log.entryAdded", exceptionEntry("TypeError: later"));
    expect(log.errors.map((error) => `${error.kind} ${error.message}`)).to.deep.equal([
      "console checkout: no payment method on file",
      "exception TypeError: boom",
      "request POST http://127.0.0.1:4000/api/checkout 404",
      "request GET http://127.0.0.1:1/x net::ERR_CONNECTION_REFUSED",
    ]);
    expect(stderr).to.deep.equal([]);
  });

  it("waits at its end for the page's requests still in flight, so the request a last click made is not lost", async () => {
    const browser = new FakeBrowser(true);
    const log = new PageErrorLog(new SecretValues());
    const stop = await capturePageErrors(browser.asBrowser(), log, {});
    const checkout = response("POST", "http://127.0.0.1:4000/api/checkout", 404, "checkout");
    const page = response("GET", PAGE, 200, "page");
    browser.emit("network.beforeRequestSent", page);
    browser.emit("network.responseCompleted", page);
    browser.emit("network.beforeRequestSent", checkout);
    const stopping = stop();
    browser.emit("network.responseCompleted", checkout);
    await stopping;
    expect(log.errors.map((error) => error.message)).to.deep.equal(["POST http://127.0.0.1:4000/api/checkout 404"]);
    for (const event of PAGE_ERROR_EVENTS) expect(browser.listenerCount(event), event).to.equal(0);

    // A request that never ends (a long poll) holds the end back only so long.
    const polling = new FakeBrowser(true);
    const stopPolling = await capturePageErrors(polling.asBrowser(), log, {}, 20);
    polling.emit("network.beforeRequestSent", response("GET", "http://127.0.0.1:4000/events", 200, "poll"));
    await stopPolling();
    expect(polling.unsubscribed).to.deep.equal([["sub-1"]]);
    expect(polling.listenerCount("network.responseCompleted")).to.equal(0);
  });

  it("captures nothing without WebDriver BiDi and says so once per run, never throwing", async () => {
    const run = {};
    const log = new PageErrorLog(new SecretValues());
    for (let i = 0; i < 3; i++) {
      const browser = new FakeBrowser(false);
      const stop = await capturePageErrors(browser.asBrowser(), log, run);
      browser.emit("log.entryAdded", exceptionEntry("TypeError: boom"));
      await stop();
      expect(browser.subscribed).to.deep.equal([]);
    }
    expect(log.errors).to.deep.equal([]);
    expect(stderr).to.deep.equal([
      "obs: page errors are not captured: the browser session has no WebDriver BiDi (engine_a and engine_b have it)\n",
    ]);
    // A browser that refuses the subscription is no reason to fail either; another run is told again.
    const refusing = new FakeBrowser(true, true);
    await (await capturePageErrors(refusing.asBrowser(), log, {}))();
    expect(stderr[1]).to.equal(
      "obs: page errors are not captured: the browser refused the subscription (unknown command)\n",
    );
    expect(refusing.listenerCount("log.entryAdded")).to.equal(0);
  });
});

const result = (pageErrors: PageError[], pageErrorsOmitted = 0): TestResult => ({
  id: "tests/shop.obs.ts > checks out",
  file: "tests/shop.obs.ts",
  name: "checks out",
  status: "passed",
  startedAt: NOW.toISOString(),
  durationMs: 1500,
  browserStartMs: 800,
  failure: null,
  steps: [],
  checks: [],
  pageErrors,
  pageErrorsOmitted,
  failureEvidence: null,
  attempts: [{ attempt: 1, status: "passed", durationMs: 1500, failure: null }],
  flaky: false,
  usage: { inputTokens: 0, outputTokens: 0 },
  cache: { hits: 0, misses: 0 },
});
const SHOP_ERRORS: PageError[] = [
  pageError("checkout: no payment method on file"),
  pageError("TypeError: Cannot read properties of undefined (reading 'address')", "exception"),
  { ...pageError("POST http://127.0.0.1:4000/api/checkout 404", "request"), url: "http://127.0.0.1:4000/api/checkout" },
];

describe("page errors in the reporters", () => {
  it("lists a test's page errors under it, the first five and then how many more, as plain text", () => {
    expect(testLine(result(SHOP_ERRORS))).to.equal(
      [
        "  PASS  tests/shop.obs.ts > checks out (1.5 s, 0 steps)",
        `        page error, console: checkout: no payment method on file (${PAGE})`,
        `        page error, exception: TypeError: Cannot read properties of undefined (reading 'address') (${PAGE})`,
        "        page error, request: POST http://127.0.0.1:4000/api/checkout 404",
      ].join("\n"),
    );
    const many = Array.from({ length: 7 }, (_, i) => pageError(`error ${i}\n\u001b[2Jwiped`));
    const lines = testLine(result(many, 93)).split("\n");
    expect(lines).to.have.length(1 + 5 + 1);
    expect(lines[1]).to.equal(`        page error, console: error 0\\x0a\\x1b[2Jwiped (${PAGE})`);
    expect(lines[6]).to.equal("        ... and 95 more page errors");
    expect(testLine(result([]))).to.equal("  PASS  tests/shop.obs.ts > checks out (1.5 s, 0 steps)");
  });

  it("writes a line per page error in the test case's <system-err>, as text", () => {
    const hostile = pageError("</system-err>]]><script>alert(1)</script>\nsecond line", "exception");
    const report: RunReport = {
      schemaVersion: "obs.report/v1",
      startedAt: NOW.toISOString(),
      durationMs: 1500,
      engine: "engine_a",
      provider: { name: "mock", model: "mock" },
      baseUrl: null,
      totals: { tests: 2, passed: 2, failed: 0, skipped: 0, flaky: 0 },
      usage: { inputTokens: 0, outputTokens: 0 },
      cache: { mode: "off", hits: 0, misses: 0 },
      files: [
        {
          file: "tests/shop.obs.ts",
          tests: [result([...SHOP_ERRORS, hostile], 4), { ...result([]), name: "clean" }],
        },
      ],
    };
    const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "testcase" }).parse(
      junitXml(report),
    );
    const [shop, clean] = parsed.testsuites.testsuite.testcase;
    expect(shop["system-err"]).to.equal(
      [
        "",
        `[console] checkout: no payment method on file (${PAGE})`,
        `[exception] TypeError: Cannot read properties of undefined (reading 'address') (${PAGE})`,
        "[request] POST http://127.0.0.1:4000/api/checkout 404",
        `[exception] </system-err>]]><script>alert(1)</script> second line (${PAGE})`,
        "... and 4 more page errors, not recorded",
        "",
      ].join("\n"),
    );
    expect(clean).not.to.have.property("system-err");
  });

  it("writes page_error progress lines, and page_errors failures, valid against the schema", () => {
    const validate = compileSchema(
      JSON.parse(readFileSync(packagePath("schemas", "checks", "progress-line.json"), "utf8")) as object,
    );
    const test = result([]);
    for (const error of [...SHOP_ERRORS, { ...pageError("x", "exception"), url: null }]) {
      const line = pageErrorLine(test, error, NOW);
      expect(validate(line), JSON.stringify(validate.errors)).to.equal(true);
      expect(line).to.deep.include({ type: "page_error", error });
    }
    const failed = {
      ...test,
      status: "failed" as const,
      failure: { kind: "page_errors" as const, message: "1 error on the page (failOnPageErrors): ..." },
    };
    expect(validate(testFinishLine(failed, NOW)), JSON.stringify(validate.errors)).to.equal(true);
    expect(
      validate({ ...pageErrorLine(test, pageError("x"), NOW), error: { ...pageError("x"), kind: "warning" } }),
    ).to.equal(false);
  });
});
