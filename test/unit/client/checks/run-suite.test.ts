import { expect } from "chai";
import type { BrowserSession } from "../../../../client/checks/browser/browser-session.js";
import { resolveRunSettings } from "../../../../client/checks/config/run-settings.js";
import type { ModelProvider } from "../../../../client/checks/providers/model-provider.js";
import type { Reporter, TestResult } from "../../../../client/checks/report/run-result.js";
import { runSuite } from "../../../../client/checks/run-suite.js";
import type { LoadedSpec } from "../../../../client/checks/spec/spec-loading.js";
import { emptySpec } from "../../../../client/checks/spec/test-registry.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const provider: ModelProvider = {
  name: "none",
  model: "none",
  complete: () => Promise.reject(new Error("no model in this test")),
};

/** Sessions that need no browser: the tests below never touch the page. */
function fakeSessions() {
  const events: string[] = [];
  let opened = 0;
  const start = async (): Promise<BrowserSession> => {
    const id = ++opened;
    events.push(`open ${id}`);
    return {
      browser: { id },
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

  const settings = () =>
    resolveRunSettings({ provider: "mock", mockTranscript: "t.json", reporter: "basic" }, {}, dir.path, {}, dir.path);

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
});
