import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import type { BrowserSession } from "../../../../client/checks/browser/browser-session.js";
import { resolveRunSettings } from "../../../../client/checks/config/run-settings.js";
import type { ModelProvider } from "../../../../client/checks/providers/model-provider.js";
import { testLine } from "../../../../client/checks/report/console-summary.js";
import { jsonReport } from "../../../../client/checks/report/json-report.js";
import { junitXml } from "../../../../client/checks/report/junit-report.js";
import { actionLine, testFinishLine } from "../../../../client/checks/report/progress-line.js";
import type { Reporter, RunReport, TestResult } from "../../../../client/checks/report/run-result.js";
import { runSuite } from "../../../../client/checks/run-suite.js";
import type { SecretValues } from "../../../../client/checks/secrets/secret-values.js";
import type { LoadedSpec } from "../../../../client/checks/spec/spec-loading.js";
import { emptySpec } from "../../../../client/checks/spec/test-registry.js";
import { resultAttributes, stepAttributes, stepLogBody } from "../../../../client/checks/telemetry/telemetry-names.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const provider: ModelProvider = {
  name: "none",
  model: "none",
  complete: () => Promise.reject(new Error("no model in this test")),
};

/** What the fake page shows: the failure snapshot reads it. */
const SNAPSHOT: RawSnapshot = {
  url: "http://shop.test/cart?token=hunter2",
  title: "Cart",
  elements: [
    {
      index: 1,
      tag: "input",
      role: null,
      type: "text",
      label: "Coupon",
      value: "hunter2",
      checked: null,
      disabled: false,
      href: null,
    },
  ],
  elementsTruncated: false,
  text: "Total: 30.00",
  textTruncated: false,
};
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What the fake browsers were asked to do in the page, and when they took a screenshot. */
const pageCalls: string[] = [];

/** Just enough of a webdriverio browser for BrowserPage: navigation, the snapshot, screenshots. */
function fakeBrowser(id: number) {
  return {
    id,
    url: async () => {},
    waitUntil: async () => true,
    // Answers each script obs runs in the page by its name; goto's error-page probe gets null.
    execute: async (script: { name: string }, ...args: unknown[]) => {
      pageCalls.push(`${script.name} ${JSON.stringify(args[1] ?? null)}`);
      if (script.name === "collectPageSnapshot") return SNAPSHOT;
      if (script.name === "fieldValues") return SNAPSHOT.elements.map((element) => element.value ?? "");
      return null;
    },
    saveScreenshot: async (path: string) => {
      pageCalls.push("screenshot");
      writeFileSync(path, PNG);
    },
    getUrl: async () => SNAPSHOT.url,
  };
}

/** Sessions over fake browsers: nothing is started. */
function fakeSessions() {
  const events: string[] = [];
  let opened = 0;
  const start = async (): Promise<BrowserSession> => {
    const id = ++opened;
    events.push(`open ${id}`);
    return {
      browser: fakeBrowser(id),
      keys: {},
      debuggerAddress: null,
      close: async () => {
        events.push(`close ${id}`);
      },
    } as unknown as BrowserSession;
  };
  return { events, start };
}

describe("browser-check runner core", function () {
  this.timeout(10_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  const settings = (retries = 0) =>
    resolveRunSettings(
      { provider: "mock", mockTranscript: "t.json", reporter: "basic", retries },
      {},
      dir.path,
      {},
      dir.path,
    );

  it("runs hooks in order around each test in its own session, skips, and reports in declaration order", async () => {
    const order: string[] = [];
    const spec: LoadedSpec = { file: `${dir.path}/a.obs.ts`, ...emptySpec() };
    spec.beforeAll.push(() => void order.push("beforeAll"));
    spec.afterAll.push(() => void order.push("afterAll"));
    spec.beforeEach.push(({ agent }) => void order.push(`beforeEach ${agent.browser.id}`));
    spec.afterEach.push(({ agent }) => void order.push(`afterEach ${agent.browser.id}`));
    spec.tests.push(
      { name: "one", body: () => void order.push("one"), options: {}, skip: false },
      { name: "two", body: () => Promise.reject(new Error("two broke\nstack")), options: {}, skip: false },
      { name: "three", body: () => void order.push("three"), options: {}, skip: true },
    );
    const sessions = fakeSessions();
    const finished: TestResult[] = [];
    const reporter: Reporter = { onTestFinish: (result) => void finished.push(result) };
    const report = await runSuite([spec], settings(), {
      provider,
      startBrowser: sessions.start,
      reporters: [reporter],
    });
    expect(order).to.deep.equal([
      "beforeAll",
      "beforeEach 1",
      "one",
      "afterEach 1",
      "beforeEach 2",
      "afterEach 2",
      "afterAll",
    ]);
    expect(sessions.events).to.deep.equal(["open 1", "close 1", "open 2", "close 2"]);
    expect(finished.map((result) => [result.name, result.status, result.failure?.message ?? null])).to.deep.equal([
      ["one", "passed", null],
      ["two", "failed", "two broke"],
      ["three", "skipped", null],
    ]);
    expect(report.totals).to.deep.equal({ tests: 3, passed: 1, failed: 1, skipped: 1, flaky: 0 });
    expect(report.files[0]?.file).to.equal("a.obs.ts");
    expect(report.files[0]?.tests[0]?.id).to.equal("a.obs.ts > one");
  });

  it("fails a test that outlives its timeout and closes its browser", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/slow.obs.ts`, ...emptySpec() };
    spec.tests.push({ name: "hangs", body: () => new Promise(() => {}), options: { timeout: 300 }, skip: false });
    const sessions = fakeSessions();
    const started = Date.now();
    const report = await runSuite([spec], settings(), { provider, startBrowser: sessions.start, reporters: [] });
    const test = report.files[0]?.tests[0];
    expect(test?.failure).to.deep.equal({ kind: "timeout", message: "timed out after 300 ms" });
    expect(sessions.events).to.deep.equal(["open 1", "close 1"]);
    expect(Date.now() - started).to.be.lessThan(5_000);
  });

  it("closes a browser that finished starting only after its test timed out, before the run ends", async () => {
    // A browser that takes longer to start than the test's timeout and the wait after it: its
    // session (and its temporary profile folder) must still be closed before the run returns.
    const spec: LoadedSpec = { file: `${dir.path}/slow-start.obs.ts`, ...emptySpec() };
    spec.tests.push({ name: "never runs", body: () => {}, options: { timeout: 200 }, skip: false });
    const sessions = fakeSessions();
    const slowStart = async (): Promise<BrowserSession> => {
      await new Promise((resolve) => setTimeout(resolve, 2_800));
      return sessions.start();
    };
    const report = await runSuite([spec], settings(), { provider, startBrowser: slowStart, reporters: [] });
    expect(report.files[0]?.tests[0]?.failure?.kind).to.equal("timeout");
    expect(sessions.events).to.deep.equal(["open 1", "close 1"]);
  });

  it("fails every test of a file whose beforeAll fails, without starting a browser", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/b.obs.ts`, ...emptySpec() };
    spec.beforeAll.push(() => {
      throw new Error("seed failed");
    });
    spec.tests.push({ name: "x", body: () => {}, options: {}, skip: false });
    const sessions = fakeSessions();
    const report = await runSuite([spec], settings(), { provider, startBrowser: sessions.start, reporters: [] });
    expect(report.files[0]?.tests[0]?.failure).to.deep.equal({ kind: "error", message: "beforeAll: seed failed" });
    expect(sessions.events).to.deep.equal([]);
  });

  it("reruns a failed test in a fresh session and reports a pass on a retry as flaky", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/f.obs.ts`, ...emptySpec() };
    let runs = 0;
    spec.tests.push(
      {
        name: "flaky",
        body: () => {
          runs += 1;
          if (runs === 1) throw new Error("first run broke");
        },
        options: {},
        skip: false,
      },
      { name: "broken", body: () => Promise.reject(new Error("always broke")), options: {}, skip: false },
    );
    const sessions = fakeSessions();
    const starts: string[] = [];
    const reporter: Reporter = { onTestStart: (test, attempt) => void starts.push(`${test.name} ${attempt}`) };
    const report = await runSuite([spec], settings(2), {
      provider,
      startBrowser: sessions.start,
      reporters: [reporter],
    });
    expect(starts).to.deep.equal(["flaky 1", "flaky 2", "broken 1", "broken 2", "broken 3"]);
    expect(sessions.events).to.deep.equal([
      "open 1",
      "close 1",
      "open 2",
      "close 2",
      "open 3",
      "close 3",
      "open 4",
      "close 4",
      "open 5",
      "close 5",
    ]);
    const [flaky, broken] = report.files[0]?.tests ?? [];
    expect(flaky).to.deep.include({ status: "passed", flaky: true, failure: null, failureEvidence: null });
    expect(
      flaky?.attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.failure?.message ?? null]),
    ).to.deep.equal([
      [1, "failed", "first run broke"],
      [2, "passed", null],
    ]);
    // The failed attempt's evidence stays with it.
    expect(flaky?.attempts[0]?.evidence?.screenshot).to.equal("failures/f-obs-ts-3c45f275/flaky/screenshot.png");
    expect(broken).to.deep.include({ status: "failed", flaky: false });
    expect(broken?.attempts).to.have.length(3);
    expect(broken?.failureEvidence?.screenshot).to.equal("failures/f-obs-ts-3c45f275/broken/retry-2/screenshot.png");
    expect(report.totals).to.deep.equal({ tests: 2, passed: 1, failed: 1, skipped: 0, flaky: 1 });
  });

  it("reports a failed afterAll as its own failed entry, whatever its file's last test did", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/h.obs.ts`, ...emptySpec() };
    spec.afterAll.push(() => {
      throw new Error("cleanup failed");
    });
    spec.tests.push(
      { name: "one", body: () => {}, options: {}, skip: false },
      { name: "two", body: () => {}, options: {}, skip: true },
    );
    const finished: TestResult[] = [];
    const reporter: Reporter = { onTestFinish: (result) => void finished.push(result) };
    const report = await runSuite([spec], settings(), {
      provider,
      startBrowser: fakeSessions().start,
      reporters: [reporter],
    });
    const shown = (results: TestResult[]) =>
      results.map((result) => [result.id, result.status, result.failure?.message ?? null]);
    const expected = [
      ["h.obs.ts > one", "passed", null],
      ["h.obs.ts > two", "skipped", null],
      ["h.obs.ts > afterAll", "failed", "afterAll: cleanup failed"],
    ];
    expect(shown(finished)).to.deep.equal(expected);
    expect(shown(report.files[0]?.tests ?? [])).to.deep.equal(expected);
    expect(report.totals).to.deep.include({ passed: 1, failed: 1, skipped: 1 });
  });

  it("reports a failed hook of a file with no tests", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/e.obs.ts`, ...emptySpec() };
    spec.beforeAll.push(() => {
      throw new Error("seed failed");
    });
    spec.afterAll.push(() => Promise.reject(new Error("cleanup failed")));
    const report = await runSuite([spec], settings(), { provider, startBrowser: fakeSessions().start, reporters: [] });
    expect(report.files[0]?.tests.map((result) => [result.name, result.failure?.message])).to.deep.equal([
      ["beforeAll", "beforeAll: seed failed"],
      ["afterAll", "afterAll: cleanup failed"],
    ]);
    expect(report.totals.failed).to.equal(2);
  });

  it("does not retry a test whose beforeAll failed, and gives it no evidence", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/b.obs.ts`, ...emptySpec() };
    spec.beforeAll.push(() => {
      throw new Error("seed failed");
    });
    spec.tests.push({ name: "x", body: () => {}, options: {}, skip: false });
    const sessions = fakeSessions();
    const report = await runSuite([spec], settings(3), { provider, startBrowser: sessions.start, reporters: [] });
    const test = report.files[0]?.tests[0];
    expect(test?.attempts).to.have.length(1);
    expect(test?.failureEvidence).to.equal(null);
    expect(sessions.events).to.deep.equal([]);
  });

  it("saves a screenshot, the URL and the snapshot of a failed test before its browser closes, also on timeout", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/shop.obs.ts`, ...emptySpec() };
    spec.tests.push(
      { name: "wrong total", body: () => Promise.reject(new Error("total is 30.00")), options: {}, skip: false },
      { name: "hangs", body: () => new Promise(() => {}), options: { timeout: 300 }, skip: false },
      { name: "passes", body: () => {}, options: {}, skip: false },
    );
    const report = await runSuite([spec], settings(), {
      provider,
      startBrowser: fakeSessions().start,
      reporters: [],
    });
    const [wrong, hangs, passes] = report.files[0]?.tests ?? [];
    expect(wrong?.failureEvidence).to.deep.equal({
      url: SNAPSHOT.url,
      screenshot: "failures/shop-obs-ts-4c81934d/wrong-total-541272bb/screenshot.png",
      snapshot: "failures/shop-obs-ts-4c81934d/wrong-total-541272bb/snapshot.txt",
    });
    const reportDir = settings().reportDir;
    expect(
      readFileSync(join(reportDir, "failures/shop-obs-ts-4c81934d/wrong-total-541272bb/screenshot.png")),
    ).to.deep.equal(PNG);
    const text = readFileSync(
      join(reportDir, "failures/shop-obs-ts-4c81934d/wrong-total-541272bb/snapshot.txt"),
      "utf8",
    );
    expect(text).to.include('Page: "Cart" http://shop.test/cart');
    expect(text).to.include("Total: 30.00");
    expect(hangs?.failure?.kind).to.equal("timeout");
    expect(hangs?.failureEvidence?.screenshot).to.equal("failures/shop-obs-ts-4c81934d/hangs/screenshot.png");
    expect(passes?.failureEvidence).to.equal(null);
    expect(existsSync(join(reportDir, "failures/shop-obs-ts-4c81934d/passes"))).to.equal(false);
  });

  it("never rewrites a result's id, file, name or status, even when a secret is one of their words", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/tests/login.obs.ts`, ...emptySpec() };
    spec.tests.push({
      name: "test passes",
      body: async ({ agent }) => {
        (agent as unknown as { secrets: SecretValues }).secrets.add({ password: "test", other: "pass" });
        await agent.goto("http://shop.example/cart?q=test");
      },
      options: {},
      skip: false,
    });
    const started: string[] = [];
    const finished: TestResult[] = [];
    const report = await runSuite([spec], settings(1), {
      provider,
      startBrowser: fakeSessions().start,
      reporters: [{ onTestStart: (test) => void started.push(test.id), onTestFinish: (r) => void finished.push(r) }],
    });
    const test = report.files[0]?.tests[0] as TestResult;
    expect(test).to.deep.include({ name: "test passes", status: "passed" });
    expect(test.file).to.match(/tests\/login\.obs\.ts$/);
    // The telemetry reporter finds a test's span by the id it started it with.
    expect(finished.map((result) => result.id)).to.deep.equal(started);
    expect(started[0]).to.include("test passes");
    expect(test.steps[0]?.url).to.equal("http://shop.example/cart?q=%password%");
  });

  it("redacts the test's secrets from every event, result, report and failure snapshot", async () => {
    const spec: LoadedSpec = { file: `${dir.path}/s.obs.ts`, ...emptySpec() };
    spec.tests.push({
      name: "uses a token",
      body: async ({ agent }) => {
        // What act/check's `secrets` option does: the runner's SecretValues learns the value.
        (agent as unknown as { secrets: SecretValues }).secrets.add({ token: "hunter2" });
        await agent.goto("http://shop.test/cart?token=hunter2");
        throw new Error("the shop refused hunter2");
      },
      options: {},
      skip: false,
    });
    const seen: unknown[] = [];
    const everything: Reporter = {
      onTestStart: (...args) => void seen.push(args),
      onStep: (...args) => void seen.push(args),
      onTestFinish: (result) => void seen.push(result),
      onRunFinish: (report: RunReport) => void seen.push(report),
    };
    const report = await runSuite([spec], settings(1), {
      provider,
      startBrowser: fakeSessions().start,
      reporters: [everything],
    });
    // What the reporters and runner telemetry make of what they were told.
    const finished = seen.at(-2) as TestResult;
    const steps = finished.steps;
    const rendered = [
      JSON.stringify(seen),
      jsonReport(report),
      junitXml(report),
      testLine(finished),
      JSON.stringify(testFinishLine(finished, new Date())),
      ...steps.map((step) => JSON.stringify(actionLine(finished, step, new Date()))),
      ...steps.map((step) => `${stepLogBody(step)} ${JSON.stringify(stepAttributes(step))}`),
      JSON.stringify(resultAttributes(finished)),
    ].join("\n");
    expect(rendered).to.include("%token%");
    expect(rendered).not.to.include("hunter2");
    const test = report.files[0]?.tests[0] as TestResult;
    expect(test.failure?.message).to.equal("the shop refused %token%");
    expect(test.steps[0]?.url).to.equal("http://shop.test/cart?token=%token%");
    expect(test.failureEvidence?.url).to.equal("http://shop.test/cart?token=%token%");
    const snapshot = readFileSync(join(settings().reportDir, test.failureEvidence?.snapshot as string), "utf8");
    expect(snapshot).to.include('value="%token%"');
    // The field holding the token has its text hidden while the screenshot is taken, then shown again.
    expect(test.failureEvidence?.screenshot).to.equal(
      "failures/s-obs-ts-cdfc9249/uses-a-token-80fb4f8c/retry-1/screenshot.png",
    );
    const shot = pageCalls.lastIndexOf("screenshot");
    expect(pageCalls.slice(shot - 2, shot + 2)).to.deep.equal([
      "fieldValues null",
      "hideFields [0]",
      "screenshot",
      "restoreFields null",
    ]);
    expect(snapshot).not.to.include("hunter2");
  });
});
