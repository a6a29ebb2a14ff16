import { writeFileSync } from "node:fs";
import { expect } from "chai";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import type { BrowserSession } from "../../../../client/checks/browser/browser-session.js";
import { resolveRunSettings } from "../../../../client/checks/config/run-settings.js";
import type { ModelProvider } from "../../../../client/checks/providers/model-provider.js";
import { runSuite } from "../../../../client/checks/run-suite.js";
import type { LoadedSpec } from "../../../../client/checks/spec/spec-loading.js";
import { emptySpec } from "../../../../client/checks/spec/test-registry.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const provider: ModelProvider = {
  name: "none",
  model: "none",
  complete: () => Promise.reject(new Error("no model in this test")),
};

const SNAPSHOT: RawSnapshot = {
  url: "http://shop.test/cart",
  title: "Cart",
  elements: [],
  elementsTruncated: false,
  text: "Total: 30.00",
  textTruncated: false,
};

/**
 * A BiDi browser that subscribes to page errors but never answers the unsubscribe, as a hung
 * browser does (webdriverio would wait 180 s for it).
 */
function hungBrowser(calls: string[]) {
  return {
    isBidi: true,
    sessionSubscribe: async () => ({ subscription: "sub-1" }),
    sessionUnsubscribe: () => {
      calls.push("unsubscribe");
      return new Promise(() => {});
    },
    on: () => {},
    off: () => {},
    url: async () => {},
    waitUntil: async () => true,
    execute: async (script: { name: string }) => (script.name === "collectPageSnapshot" ? SNAPSHOT : null),
    saveScreenshot: async (path: string) => {
      calls.push("screenshot");
      writeFileSync(path, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    },
    getUrl: async () => SNAPSHOT.url,
  };
}

describe("runner teardown with a hung browser", function () {
  // Unbounded, the unsubscribe would hold the test far past this.
  this.timeout(15_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("goes on past a page-errors unsubscribe that never answers: evidence is taken and the session closed", async () => {
    const calls: string[] = [];
    const spec: LoadedSpec = { file: `${dir.path}/a.obs.ts`, ...emptySpec() };
    spec.tests.push({ name: "breaks", body: () => Promise.reject(new Error("broke")), options: {}, skip: false });
    const settings = resolveRunSettings(
      { provider: "mock", mockTranscript: "t.json", reporter: "basic" },
      {},
      dir.path,
      {},
      dir.path,
    );
    const session = {
      browser: hungBrowser(calls),
      keys: {},
      debuggerAddress: null,
      close: async () => void calls.push("close"),
    } as unknown as BrowserSession;
    const report = await runSuite([spec], settings, {
      provider,
      startBrowser: async () => session,
      reporters: [],
    });
    const result = report.files[0]?.tests[0];
    expect(result?.status).to.equal("failed");
    expect(result?.failureEvidence?.screenshot).to.equal("failures/a-obs-ts-58f58681/breaks/screenshot.png");
    expect(calls).to.deep.equal(["unsubscribe", "screenshot", "close"]);
  });
});
