import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative } from "node:path";
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

/** The shop's cart reads 30.00 where 2 x 10.00 + 20.00 is 40.00: the check fails, as it should. */
const SHOP_SPEC = `import { test } from "obs/test";

test("totals the cart", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.check("the cart total is 40.00");
});
`;

/** Checkout logs an error, asks for a missing endpoint and throws: page errors. */
const CHECKOUT_SPEC = `import { test } from "obs/test";

test("checks out", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.act("check out");
});
`;

/** Fails on its first run and passes on the next: it counts its runs in a file of the project. */
const FLAKY_SPEC = `import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "obs/test";

test("passes the second time", async ({ agent }) => {
  await agent.goto("/shop.html");
  const counter = join(process.cwd(), "runs.txt");
  const runs = (existsSync(counter) ? Number(readFileSync(counter, "utf8")) : 0) + 1;
  writeFileSync(counter, String(runs));
  if (runs === 1) throw new Error("the first run is unlucky");
});
`;

/**
 * A secret from the environment, given as act's \`secrets\`. The runner's redaction is what is
 * tested, whatever reaches it: the scripted model types the value itself, the test puts it in a
 * URL and throws it in an error, and the model records a lesson that quotes it. The test also
 * hands the value to the runner's SecretValues for the test (agent.secrets), which is what act's
 * \`secrets\` option fills; doing it here keeps this test about the artifacts.
 */
const SECRET_SPEC = `import { test } from "obs/test";

const password = process.env.SHOP_PASSWORD;
if (!password) throw new Error("set SHOP_PASSWORD");
const remember = (agent: unknown) =>
  (agent as { secrets: { add(values: Record<string, string>): void } }).secrets.add({ password });

test("signs in with a secret", async ({ agent }) => {
  remember(agent);
  await agent.goto("/login.html");
  await agent.act("sign in as ada with %password%", { secrets: { password } });
});

test("carries the secret into a failure", async ({ agent }) => {
  remember(agent);
  await agent.goto("/login.html?coupon=" + password);
  await agent.act("type %password% as the username", { secrets: { password } });
  throw new Error("the shop refused the coupon " + password);
});
`;

/**
 * Quotes, a backslash, a double space and a non-ASCII letter: JSON, XML and URLs each write it
 * differently, and every one of those forms must be redacted. (login.html wants "lovelace", so
 * the sign-in is refused; the test is about where the value goes, not about signing in.)
 */
const SECRET = 'p"a  ss\\wörd-1';
/** The secret's tail in every form a file, a line or a span could hold it: as typed, JSON- or XML-escaped, or URL-encoded. */
const leaked = (text: string | Buffer) => ["wörd-1", "w%C3%B6rd-1"].some((tail) => text.includes(tail));

const SIGN_IN = [
  { tool: "type", args: { target: "Username", text: "ada" } },
  { tool: "type", args: { target: "Password", text: SECRET } },
  { tool: "click", args: { target: "Sign in" }, text: `Signing in with ${SECRET}.` },
  { tool: "done", args: { evidence: `signed in as ada with ${SECRET}` } },
];
/** The secret typed where it shows: a text field, which the failure screenshot must hide. */
const TYPE_IN_VIEW = [
  { tool: "type", args: { target: "Username", text: SECRET } },
  { tool: "record_lesson", args: { lesson: `the username field takes ${SECRET}`, skill: "forms-and-sign-in" } },
  { tool: "done", args: { evidence: `typed ${SECRET}` } },
];

const TRANSCRIPT = {
  schema_version: "obs.mock-transcript/v1",
  entries: [
    {
      test: "totals the cart",
      instruction: "total is 40.00",
      calls: [{ tool: "fail", args: { reason: "the page reads Total: 30.00" } }],
    },
    {
      test: "checks out",
      instruction: "check out",
      calls: [
        { tool: "click", args: { target: "Checkout" } },
        { tool: "done", args: { evidence: "the status reads Processing" } },
      ],
    },
    { test: "signs in with a secret", instruction: "sign in", calls: SIGN_IN },
    { test: "carries the secret into a failure", instruction: "as the username", calls: TYPE_IN_VIEW },
  ],
};

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => relative(dir, path));
}

/** An OTLP/HTTP collector that only keeps what it is sent. */
async function recordingCollector(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("browser-check runner: failure evidence, retries, secrets (real Chromium, mock provider)", function () {
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
    project = tempDir("obs-runner-");
    mkdirSync(join(project.path, "tests"));
    writeFileSync(join(project.path, "tests", "shop.obs.ts"), SHOP_SPEC);
    writeFileSync(join(project.path, "tests", "flaky.obs.ts"), FLAKY_SPEC);
    writeFileSync(join(project.path, "tests", "checkout.obs.ts"), CHECKOUT_SPEC);
    writeFileSync(join(project.path, "tests", "secret.obs.ts"), SECRET_SPEC);
    writeFileSync(join(project.path, "transcript.json"), JSON.stringify(TRANSCRIPT));
  });
  afterEach(() => project.cleanup());

  const obs = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runObs(args, { cwd: project.path, env: { ...CLEAN_ENV, ...env }, timeoutMs: 150_000 });
  const run = (spec: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    obs(mockArgs(site.url, "test", [`tests/${spec}`], extra), env);
  const reportDir = () => join(project.path, ".obs");
  const report = () => JSON.parse(readFileSync(join(reportDir(), "report.json"), "utf8"));
  const junitCases = () =>
    new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (name) => name === "testsuite" || name === "testcase",
    })
      .parse(readFileSync(join(reportDir(), "junit.xml"), "utf8"))
      .testsuites.testsuite.flatMap((suite: { testcase: unknown[] }) => suite.testcase);
  const progress = () =>
    readFileSync(join(project.path, "progress.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));

  it("leaves a screenshot, the URL and the page snapshot of a failed check, without being asked", async () => {
    const result = await run("shop.obs.ts");
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    const test = report().files[0].tests[0];
    expect(test.failure.kind).to.equal("check_failed");
    expect(test.failure_evidence).to.deep.equal({
      url: `${site.url}/shop.html`,
      screenshot: "failures/tests-shop-obs-ts-94fb515a/totals-the-cart-b0233b3c/screenshot.png",
      snapshot: "failures/tests-shop-obs-ts-94fb515a/totals-the-cart-b0233b3c/snapshot.txt",
    });
    const png = readFileSync(join(reportDir(), test.failure_evidence.screenshot));
    expect(png.subarray(1, 4).toString()).to.equal("PNG");
    // The copy the suite's reviewers look at (artifacts/ is git-ignored).
    mkdirSync(packagePath("artifacts", "checks"), { recursive: true });
    writeFileSync(packagePath("artifacts", "checks", "failure-evidence-shop.png"), png);
    const snapshot = readFileSync(join(reportDir(), test.failure_evidence.snapshot), "utf8");
    expect(snapshot).to.include(`Page: "Corner Shop" ${site.url}/shop.html`);
    expect(snapshot).to.include("Total: 30.00");
    expect(snapshot).to.match(/\[\d+\] button "Checkout"/);
    // Per-step screenshots stay off: only the failure's.
    expect(test.steps.every((step: { screenshot: string | null }) => step.screenshot === null)).to.equal(true);

    expect(result.stdout).to.include(
      "        screenshot: .obs/failures/tests-shop-obs-ts-94fb515a/totals-the-cart-b0233b3c/screenshot.png",
    );
    const [testcase] = junitCases();
    expect(testcase["system-out"]).to.include(
      "[[ATTACHMENT|failures/tests-shop-obs-ts-94fb515a/totals-the-cart-b0233b3c/screenshot.png]]",
    );
  });

  it("writes its reports, evidence, screenshots, cache and progress owner-only whatever the umask", async () => {
    const previous = process.umask(0o000);
    // The child takes the umask when it is spawned, which happens before the first await.
    const running = run("shop.obs.ts", ["--capture-screenshots", "--progress-file", "progress.ndjson"]);
    process.umask(previous);
    const result = await running;
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    const loose: string[] = [];
    const walk = (path: string) => {
      const stats = statSync(path);
      const mode = stats.mode & 0o777;
      if (mode !== (stats.isDirectory() ? 0o700 : 0o600)) loose.push(`${path} ${mode.toString(8)}`);
      if (stats.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(reportDir());
    walk(join(project.path, "progress.ndjson"));
    expect(loose).to.deep.equal([]);
    expect(readdirSync(join(reportDir(), "failures"))).to.have.length(1);
  });

  it("leaves the evidence of a test its page errors failed (--fail-on-page-errors)", async () => {
    const result = await run("checkout.obs.ts", ["--fail-on-page-errors"]);
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    const test = report().files[0].tests[0];
    expect(test.failure.kind).to.equal("page_errors");
    expect(test.failure_evidence.url).to.equal(`${site.url}/shop.html`);
    expect(readFileSync(join(reportDir(), test.failure_evidence.screenshot)).subarray(1, 4).toString()).to.equal("PNG");
    expect(readFileSync(join(reportDir(), test.failure_evidence.snapshot), "utf8")).to.include("Processing");
  });

  it("passes a flaky test on a retry and flags it in every report; without retries it fails", async () => {
    const retried = await run("flaky.obs.ts", ["--retries", "1", "--progress-file", "progress.ndjson"]);
    expect(retried.code, retried.stdout + retried.stderr).to.equal(0);
    expect(retried.stdout).to.include("  FLAKY tests/flaky.obs.ts > passes the second time");
    expect(retried.stdout).to.include("        attempt 1: the first run is unlucky");
    expect(retried.stdout).to.match(/1 tests: 1 passed, 0 failed, 0 skipped, 1 flaky/);

    const json = report();
    expect(json.totals).to.deep.equal({ tests: 1, passed: 1, failed: 0, skipped: 0, flaky: 1 });
    const test = json.files[0].tests[0];
    expect(test).to.deep.include({ status: "passed", flaky: true, failure: null, failure_evidence: null });
    expect(test.attempts.map((attempt: { status: string }) => attempt.status)).to.deep.equal(["failed", "passed"]);
    expect(test.attempts[0].failure).to.deep.equal({ kind: "error", message: "the first run is unlucky" });
    // The failed attempt's screenshot is kept and attached, though the test passed.
    const firstShot = test.attempts[0].evidence.screenshot;
    expect(readFileSync(join(reportDir(), firstShot)).subarray(1, 4).toString()).to.equal("PNG");
    // The result is the last attempt's: its own steps, from a fresh session.
    expect(test.steps.map((step: { kind: string }) => step.kind)).to.deep.equal(["goto"]);

    const [testcase] = junitCases();
    expect(testcase).not.to.have.property("failure");
    expect(testcase.flakyFailure).to.deep.include({ message: "the first run is unlucky", type: "error" });
    expect(testcase["system-out"]).to.include(`[[ATTACHMENT|${firstShot}]]`);

    const lines = progress();
    for (const line of lines) expect(validateProgress(line), JSON.stringify(validateProgress.errors)).to.equal(true);
    expect(lines.filter((line) => line.type === "test_start").map((line) => line.attempt)).to.deep.equal([1, 2]);
    expect(lines.at(-1)).to.deep.include({ type: "test_finish", status: "passed", attempts: 2, flaky: true });

    writeFileSync(join(project.path, "runs.txt"), "0");
    const once = await run("flaky.obs.ts");
    expect(once.code, once.stdout + once.stderr).to.equal(1);
    expect(once.stdout).to.include("  FAIL  tests/flaky.obs.ts > passes the second time");
    expect(report().files[0].tests[0]).to.deep.include({ status: "failed", flaky: false });
  });

  it("writes the secret into no file, line or span of a run, a retry, the journal, the cache or a distilled skill", async () => {
    const collector = await recordingCollector();
    try {
      const result = await run(
        "secret.obs.ts",
        [
          "--retries",
          "1",
          "--capture-screenshots",
          "--progress-file",
          "progress.ndjson",
          "--verbose",
          "--otel-endpoint",
          collector.url,
        ],
        { SHOP_PASSWORD: SECRET },
      );
      expect(result.code, result.stdout + result.stderr).to.equal(1);
      const json = report();
      const [passing, failing] = json.files[0].tests;
      expect(passing.status, JSON.stringify(passing.failure)).to.equal("passed");
      expect(failing.failure.message).to.equal("the shop refused the coupon %password%");
      expect(failing.attempts).to.have.length(2);
      expect(failing.failure_evidence.url).to.equal(`${site.url}/login.html?coupon=%password%`);
      // Each of these held the value before redaction.
      const typed = passing.steps
        .filter((step: { tool: string }) => step.tool === "type")
        .map((step: { args: { text: string } }) => step.args.text);
      expect(typed).to.deep.equal(["ada", "%password%"]);
      const snapshot = readFileSync(join(reportDir(), failing.failure_evidence.snapshot), "utf8");
      expect(snapshot).to.include("coupon=%password%");
      expect(snapshot).to.match(/"Username" value="%password%"/);
      // For a reviewer to see that the Username field's text is hidden in it (artifacts/ is git-ignored).
      mkdirSync(packagePath("artifacts", "checks"), { recursive: true });
      writeFileSync(
        packagePath("artifacts", "checks", "failure-evidence-secret.png"),
        readFileSync(join(reportDir(), failing.failure_evidence.screenshot)),
      );
      const journal = readFileSync(join(reportDir(), "skills", "journal.ndjson"), "utf8");
      expect(journal).to.include("the username field takes %password%");
      const cache = readFileSync(join(reportDir(), "action-cache.json"), "utf8");
      expect(cache).to.include("%password%");
      expect(collector.bodies.join("\n")).to.include("%password%");

      const improved = await obs(["skills", "improve", "forms-and-sign-in", "--write"]);
      expect(improved.code, improved.stderr).to.equal(0);

      // Everything but the inputs: the specs and the scripted model's transcript.
      const written = filesUnder(project.path).filter(
        (path) => !path.startsWith("tests/") && path !== "transcript.json",
      );
      expect(written).to.include.members([
        ".obs/report.json",
        ".obs/junit.xml",
        ".obs/action-cache.json",
        ".obs/skills/journal.ndjson",
        "progress.ndjson",
      ]);
      for (const path of written) {
        expect(leaked(readFileSync(join(project.path, path))), path).to.equal(false);
      }
      for (const [name, text] of [
        ["stdout", result.stdout],
        ["stderr", result.stderr],
        ["skills improve", improved.stdout + improved.stderr],
        ["telemetry", collector.bodies.join("\n")],
      ] as const) {
        expect(leaked(text), name).to.equal(false);
      }
    } finally {
      await collector.close();
    }
  });
});
