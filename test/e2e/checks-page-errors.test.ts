import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { XMLParser } from "fast-xml-parser";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
import { compileSchema } from "../helpers/schema-validator.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const SITE = packagePath("test", "fixtures", "checks", "site");
const validateProgress = compileSchema(
  JSON.parse(readFileSync(packagePath("schemas", "checks", "progress-line.json"), "utf8")) as object,
);

/** Checkout on the fixture shop logs an error, POSTs to a missing endpoint and throws; reading the cart does none of it. */
const SHOP_SPEC = `import { test } from "obs/test";

test("checks out", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.act("click Checkout");
  await agent.check("the status reads Processing");
});
`;
const CLEAN_SPEC = `import { test } from "obs/test";

test("reads the cart", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.check("the cart total reads Total: 30.00");
});
`;
const TRANSCRIPT = {
  schema_version: "obs.mock-transcript/v1",
  entries: [
    {
      test: "checks out",
      instruction: "click Checkout",
      calls: [
        { tool: "click", args: { target: "Checkout" } },
        { tool: "done", args: { evidence: "clicked Checkout" } },
      ],
    },
    {
      test: "checks out",
      instruction: "Processing",
      calls: [{ tool: "done", args: { quote: "Processing…", evidence: "the status reads Processing…" } }],
    },
    { test: "reads the cart", instruction: "Total", calls: [{ tool: "done", args: { quote: "Total: 30.00" } }] },
  ],
};

interface JsonPageError {
  kind: string;
  message: string;
  url: string | null;
  time: string;
}
interface JsonTest {
  name: string;
  status: string;
  failure: { kind: string; message: string } | null;
  page_errors: JsonPageError[];
  page_errors_omitted: number;
}

describe("page errors end to end (real Chromium, the fixture shop, mock provider)", function () {
  this.timeout(180_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let project: ReturnType<typeof tempDir>;

  before(async () => {
    site = await serveFolder(SITE);
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => {
    project = tempDir("obs-page-errors-");
    mkdirSync(join(project.path, "tests"));
    writeFileSync(join(project.path, "tests", "shop.obs.ts"), SHOP_SPEC);
    writeFileSync(join(project.path, "tests", "clean.obs.ts"), CLEAN_SPEC);
    writeFileSync(join(project.path, "transcript.json"), JSON.stringify(TRANSCRIPT));
  });
  afterEach(() => project.cleanup());

  /** `obs test` on both specs with the mock provider; `args` replaces the whole command line but for the extras. */
  const run = (
    extra: string[] = [],
    args = mockArgs(site.url, "test", ["tests/shop.obs.ts", "tests/clean.obs.ts"]),
    env: NodeJS.ProcessEnv = {},
  ) =>
    runObs([...args, "--cache", "off", ...extra], {
      cwd: project.path,
      env: { ...CLEAN_ENV, ...env },
      timeoutMs: 150_000,
    });
  const tests = (): Record<string, JsonTest> => {
    const report = JSON.parse(readFileSync(join(project.path, ".obs", "report.json"), "utf8"));
    const all: JsonTest[] = report.files.flatMap((file: { tests: JsonTest[] }) => file.tests);
    return Object.fromEntries(all.map((test) => [test.name, test]));
  };
  const output = (result: CliResult) => `${result.stdout}\n${result.stderr}`;
  const checkout = () => `${site.url}/api/checkout`;
  const shopPage = () => `${site.url}/shop.html`;

  it("reports Checkout's console error, exception and failed request in report.json, JUnit, the console and progress lines, and still passes", async () => {
    const result = await run(["--progress-file", "progress.ndjson"]);
    expect(result.code, output(result)).to.equal(0);

    const { "checks out": shop, "reads the cart": clean } = tests();
    expect(shop?.status).to.equal("passed");
    expect(shop?.failure).to.equal(null);
    expect(shop?.page_errors.map(({ kind, message, url }) => ({ kind, message, url }))).to.have.deep.members([
      { kind: "console", message: "checkout: no payment method on file", url: shopPage() },
      {
        kind: "exception",
        message: "TypeError: Cannot read properties of undefined (reading 'address')",
        url: shopPage(),
      },
      { kind: "request", message: `POST ${checkout()} 404`, url: checkout() },
    ]);
    expect(shop?.page_errors_omitted).to.equal(0);
    for (const error of shop?.page_errors ?? []) expect(Number.isNaN(Date.parse(error.time))).to.equal(false);
    expect(clean?.status).to.equal("passed");
    expect(clean?.page_errors).to.deep.equal([]);

    const junit = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (name) => name === "testsuite" || name === "testcase",
    }).parse(readFileSync(join(project.path, ".obs", "junit.xml"), "utf8")).testsuites;
    const cases = Object.fromEntries(
      junit.testsuite.flatMap((suite: { testcase: { name: string }[] }) =>
        suite.testcase.map((testcase) => [testcase.name, testcase]),
      ),
    );
    const systemErr: string = cases["checks out"]["system-err"];
    expect(systemErr).to.include(`[console] checkout: no payment method on file (${shopPage()})`);
    expect(systemErr).to.include("[exception] TypeError: Cannot read properties of undefined (reading 'address')");
    expect(systemErr).to.include(`[request] POST ${checkout()} 404`);
    expect(cases["checks out"]).not.to.have.property("failure");
    expect(cases["reads the cart"]).not.to.have.property("system-err");

    // The HTML report (written by the default reporters) shows them as text under the test.
    const html = readFileSync(join(project.path, ".obs", "report", "index.html"), "utf8");
    expect(html).to.include("TypeError: Cannot read properties of undefined (reading &#39;address&#39;)");
    expect(html).to.include("checkout: no payment method on file");
    expect(html).to.include(`POST ${checkout()} 404`);

    // The console lists them under the test they belong to, and nothing under the clean one.
    const lines = result.stdout.split("\n");
    const shopAt = lines.findIndex((line) => line.startsWith("  PASS  tests/shop.obs.ts > checks out"));
    expect(shopAt, result.stdout).to.be.greaterThan(-1);
    expect(lines.slice(shopAt + 1, shopAt + 4)).to.have.members([
      `        page error, console: checkout: no payment method on file (${shopPage()})`,
      `        page error, exception: TypeError: Cannot read properties of undefined (reading 'address') (${shopPage()})`,
      `        page error, request: POST ${checkout()} 404`,
    ]);
    const cleanAt = lines.findIndex((line) => line.startsWith("  PASS  tests/clean.obs.ts > reads the cart"));
    expect(lines[cleanAt + 1]).not.to.match(/page error/);

    // Progress lines tell of each as it happens, before the test finishes.
    const progress = readFileSync(join(project.path, "progress.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    for (const line of progress) expect(validateProgress(line), JSON.stringify(validateProgress.errors)).to.equal(true);
    const ofShop = progress.filter((line) => line.test.name === "checks out").map((line) => line.type);
    expect(ofShop.filter((type) => type === "page_error")).to.have.length(3);
    expect(ofShop.lastIndexOf("page_error")).to.be.lessThan(ofShop.indexOf("test_finish"));
    expect(progress.filter((line) => line.test.name === "reads the cart" && line.type === "page_error")).to.deep.equal(
      [],
    );
  });

  it("fails the same test with kind page_errors and exit 1 under --fail-on-page-errors or failOnPageErrors in obs.config.ts; the clean page still passes", async () => {
    const flagged = await run(["--fail-on-page-errors"]);
    expect(flagged.code, output(flagged)).to.equal(1);
    const { "checks out": shop, "reads the cart": clean } = tests();
    expect(shop?.status).to.equal("failed");
    expect(shop?.failure?.kind).to.equal("page_errors");
    expect(shop?.failure?.message).to.match(/^3 errors on the page \(failOnPageErrors\): .+ \(and 2 more\)$/);
    expect(clean?.status).to.equal("passed");
    expect(flagged.stdout).to.include("  FAIL  tests/shop.obs.ts > checks out");
    expect(flagged.stdout).to.include("        3 errors on the page (failOnPageErrors)");
    expect(flagged.stdout).to.include("  PASS  tests/clean.obs.ts > reads the cart");
    expect(flagged.stdout).to.match(/2 tests: 1 passed, 1 failed/);

    writeFileSync(
      join(project.path, "obs.config.ts"),
      `import { defineConfig } from "obs/test";
export default defineConfig({ baseUrl: "${site.url}", provider: "mock", mockTranscript: "transcript.json", failOnPageErrors: true });
`,
    );
    const configured = await run([], ["test", "tests/shop.obs.ts"]);
    expect(configured.code, output(configured)).to.equal(1);
    expect(tests()["checks out"]?.failure?.kind).to.equal("page_errors");
  });

  it("on engine_c (WebKit, no WebDriver BiDi) captures nothing, says so once, and fails no test for it", async () => {
    const result = await run(
      ["--browser", "engine_c", "--fail-on-page-errors"],
      mockArgs(site.url, "test", ["tests/shop.obs.ts", "tests/clean.obs.ts"]),
      // Under Xvfb, as on a machine without a display.
      { DISPLAY: "" },
    );
    expect(result.code, output(result)).to.equal(0);
    const notice = "obs: page errors are not captured: the browser session has no WebDriver BiDi";
    expect(result.stderr.split(notice)).to.have.length(2);
    const { "checks out": shop, "reads the cart": clean } = tests();
    expect(shop?.status).to.equal("passed");
    expect(shop?.page_errors).to.deep.equal([]);
    expect(clean?.status).to.equal("passed");
  });
});
