import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import type { Browser } from "webdriverio";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateChromium } from "../../client/checks/browser/engines.js";
import { htmlReport } from "../../client/checks/report/html-report.js";
import type { RunReport } from "../../client/checks/report/run-result.js";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { runObs } from "../helpers/obs-cli.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const FIXTURES = packagePath("test", "fixtures", "checks");
/** Screenshots of the report for a person to look at (git-ignored; CI keeps artifacts/). */
const SHOTS = packagePath("artifacts", "checks");

/** A raw GET (or other method) whose path goes out exactly as written, `..` and all. */
function rawRequest(origin: string, path: string, method = "GET"): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the HTML report in Chromium, served by obs show-report", function () {
  this.timeout(120_000);
  const report = JSON.parse(readFileSync(join(FIXTURES, "report", "run-report.json"), "utf8")) as RunReport;
  const failed = report.files[0]?.tests[0];
  let dir: ReturnType<typeof tempDir>;
  let session: BrowserSession;
  let browser: Browser;
  let server: ChildProcessWithoutNullStreams;
  let url: string;

  /** Writes a screenshot of the page at `path` in the report directory. */
  async function shoot(path: string): Promise<void> {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    await browser.saveScreenshot(join(dir.path, path));
  }

  before(async () => {
    dir = tempDir("obs-html-report-");
    session = await startBrowser({
      launch: { engine: "engine_a", ...locateChromium(process.env) },
      headed: false,
      viewport: { width: 1280, height: 900 },
    });
    browser = session.browser;
    // The report's images are real screenshots of the shop with its bug, as a run takes them.
    const site = await serveFolder(join(FIXTURES, "site"));
    try {
      await browser.url(`${site.url}/shop.html`);
      const shots = failed?.steps.flatMap((step) => (step.screenshot ? [step.screenshot] : [])) ?? [];
      for (const path of shots) await shoot(path);
      await browser.$("#checkout").click();
      await shoot(failed?.failureEvidence?.screenshot ?? "");
    } finally {
      await site.close();
    }
    writeFileSync(join(dir.path, failed?.failureEvidence?.snapshot ?? ""), 'heading "Corner Shop"\nTotal: 30.00\n');
    mkdirSync(join(dir.path, "report"));
    writeFileSync(join(dir.path, "report", "index.html"), htmlReport(report));
    server = spawn(process.execPath, [packagePath("bin", "obs.js"), "show-report", dir.path, "--no-open"]);
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (chunk) => {
        out += chunk;
        if (out.includes("\n")) resolve(out.split("\n")[0] ?? "");
      });
      server.once("exit", (code) => reject(new Error(`obs show-report exited ${code}`)));
    });
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGINT");
      await exited;
    }
    await session?.close();
    dir?.cleanup();
  });

  it("prints a loopback URL of the page and serves it", () => {
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/report\/index\.html$/);
  });

  it("opens the failed test and shows its failed step, page errors and screenshots", async () => {
    await browser.url(url);
    const failedTest = browser.$("details.test.failed");
    expect(await failedTest.getAttribute("open")).to.not.equal(null);
    expect(await browser.$("details.test.passed").getAttribute("open")).to.equal(null);
    const badStep = failedTest.$("li.step.bad");
    expect(await badStep.isDisplayed()).to.equal(true);
    const stepText = await badStep.getText();
    expect(stepText).to.include("press the Pay now button");
    expect(stepText).to.include("there is no element [99]");
    expect(stepText).to.match(/error/i);
    const text = await failedTest.getText();
    expect(text).to.include("TypeError: Cannot read properties of undefined (reading 'address')");
    expect(text).to.include("POST /api/checkout: 404 Not Found");
    expect(text).to.include('spinbutton "Quantity of Tea"');
    expect(text).to.include("1 verdict refused");
    // Each image of the failed test loaded from the report directory (they load lazily: scroll to each).
    const images = await failedTest.$$("img");
    expect(images.length).to.equal(3);
    for (const image of images) {
      await image.scrollIntoView({ block: "center" });
      await browser.waitUntil(async () => Number(await image.getProperty("naturalWidth")) > 0, {
        timeout: 10_000,
        timeoutMsg: `image ${await image.getAttribute("src")} did not load`,
      });
    }
    await badStep.scrollIntoView({ block: "center" });
    await browser.saveScreenshot(join(SHOTS, "html-report-failed-step.png"));
    await failedTest.$("ul.page-errors").scrollIntoView({ block: "start" });
    await browser.saveScreenshot(join(SHOTS, "html-report-page-errors.png"));
  });

  it("loads its images when opened straight from the disk, without the server", async () => {
    await browser.url(pathToFileURL(join(dir.path, "report", "index.html")).href);
    const image = browser.$("details.test.failed figure img");
    await browser.waitUntil(async () => Number(await image.getProperty("naturalWidth")) > 0, {
      timeout: 10_000,
      timeoutMsg: "the failure screenshot did not load from file://",
    });
  });

  it("shows a flaky test's attempts when opened, and filters tests by status", async () => {
    await browser.url(url);
    const flaky = browser.$("details.test.flaky");
    expect(await flaky.$("ul.attempts").isDisplayed()).to.equal(false);
    await flaky.$("summary").click();
    const attempts = await flaky.$("ul.attempts").getText();
    expect(attempts).to.match(/failed\s+attempt 1/i);
    expect(attempts).to.include("the test took longer than 2000 ms");
    expect(attempts).to.match(/passed\s+attempt 2/i);
    await flaky.scrollIntoView({ block: "start" });
    await browser.saveScreenshot(join(SHOTS, "html-report-flaky.png"));
    await browser.$("label=failed").click();
    expect(await browser.$("details.test.failed").isDisplayed()).to.equal(true);
    expect(await flaky.isDisplayed()).to.equal(false);
    expect(await browser.$("details.test.passed").isDisplayed()).to.equal(false);
    await browser.$("label=all").click();
    expect(await flaky.isDisplayed()).to.equal(true);
  });

  it("shows a test name with markup as text and runs nothing from the run", async () => {
    await browser.url(url);
    const names = await browser.$$("summary .name").map((name) => name.getText());
    expect(names).to.include('greets <script>window.pwned = 1</script> & "ada"');
    expect(await browser.execute("return [typeof window.pwned, document.scripts.length]")).to.deep.equal([
      "undefined",
      0,
    ]);
  });

  it("is readable light, dark and 390 px wide", async () => {
    await browser.url(url);
    await browser.saveScreenshot(join(SHOTS, "html-report-light.png"));
    const background = () => browser.execute("return getComputedStyle(document.body).backgroundColor");
    const light = await background();
    await browser.sendCommand("Emulation.setEmulatedMedia", {
      features: [{ name: "prefers-color-scheme", value: "dark" }],
    });
    expect(await background()).to.not.equal(light);
    await browser.saveScreenshot(join(SHOTS, "html-report-dark.png"));
    await browser.sendCommand("Emulation.setEmulatedMedia", {
      features: [{ name: "prefers-color-scheme", value: "" }],
    });
    await browser.setViewport({ width: 390, height: 844 });
    try {
      await browser.url(url);
      // Nothing wider than the screen: no sideways scrolling on a phone.
      expect(await browser.execute("return document.documentElement.scrollWidth")).to.be.at.most(390);
      await browser.saveScreenshot(join(SHOTS, "html-report-narrow.png"));
      await browser.$("details.test.failed li.step.bad").scrollIntoView({ block: "start" });
      await browser.saveScreenshot(join(SHOTS, "html-report-narrow-steps.png"));
    } finally {
      await browser.setViewport({ width: 1280, height: 900 });
    }
  });

  it("serves only the report directory's files, and only to GET", async () => {
    const origin = new URL(url).origin;
    const snapshot = await rawRequest(origin, `/${failed?.failureEvidence?.snapshot}`);
    expect(snapshot).to.deep.equal({ status: 200, body: 'heading "Corner Shop"\nTotal: 30.00\n' });
    for (const path of ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/report/..%2f..%2f..%2fetc/passwd"]) {
      const answer = await rawRequest(origin, path);
      expect(answer.status, path).to.be.oneOf([403, 404]);
      expect(answer.body, path).not.to.include("root:");
    }
    expect((await rawRequest(origin, "/../../etc/passwd")).status).to.equal(403);
    // A link inside the folder to a file outside it is refused too.
    const outside = tempDir("obs-outside-");
    try {
      writeFileSync(join(outside.path, "secret.txt"), "outside the report\n");
      symlinkSync(outside.path, join(dir.path, "linked"));
      const linked = await rawRequest(origin, "/linked/secret.txt");
      expect(linked.status).to.equal(403);
      expect(linked.body).not.to.include("outside the report");
    } finally {
      outside.cleanup();
    }
    expect((await rawRequest(origin, "/report/index.html", "POST")).status).to.equal(405);
  });

  it("opens the page with the browser opener obs open uses, and ends 0 on Ctrl+C", async () => {
    const scratch = tempDir("obs-opener-");
    const opened = join(scratch.path, "opened.txt");
    const opener = join(scratch.path, "opener.sh");
    // Written whole, then renamed: the shell's redirect creates the file empty before printf fills it.
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${opened}.part' && mv '${opened}.part' '${opened}'\n`);
    chmodSync(opener, 0o755);
    const child = spawn(process.execPath, [packagePath("bin", "obs.js"), "show-report", dir.path], {
      env: { ...process.env, CI: "", DISPLAY: ":0", OBS_BROWSER_OPENER: opener },
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      let printed = "";
      child.stdout.on("data", (chunk) => {
        printed += chunk;
      });
      await browser.waitUntil(async () => existsSync(opened) && printed.includes("\n"), {
        timeout: 15_000,
        timeoutMsg: "the opener was not run",
      });
      expect(readFileSync(opened, "utf8")).to.equal(printed.trim());
      expect(printed.trim()).to.match(/^http:\/\/127\.0\.0\.1:\d+\/report\/index\.html$/);
    } finally {
      child.kill("SIGINT");
      expect(await exited).to.equal(0);
      scratch.cleanup();
    }
  });

  it("exits 2 with a hint for a folder without a report", async () => {
    const empty = tempDir("obs-no-report-");
    try {
      const result = await runObs(["show-report", join(empty.path, "missing"), "--no-open"]);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.include("run obs test --reporter html first");
      const bare = await runObs(["show-report", "--no-open"], { cwd: empty.path });
      expect(bare.code).to.equal(2);
      expect(bare.stderr).to.include(join(empty.path, ".obs"));
    } finally {
      empty.cleanup();
    }
  });
});

describe("obs test --reporter html, then obs show-report, in Chromium", function () {
  this.timeout(180_000);
  let project: ReturnType<typeof tempDir>;
  let session: BrowserSession;

  before(async () => {
    project = tempDir("obs-html-run-");
    cpSync(join(FIXTURES, "specs"), join(project.path, "tests"), { recursive: true });
    cpSync(join(FIXTURES, "transcript.json"), join(project.path, "transcript.json"));
    session = await startBrowser({
      launch: { engine: "engine_a", ...locateChromium(process.env) },
      headed: false,
      viewport: { width: 1280, height: 900 },
    });
  });
  after(async () => {
    await session?.close();
    project?.cleanup();
  });

  it("writes report/index.html for a real run, which shows the failed test's steps and screenshots", async () => {
    const site = await serveFolder(join(FIXTURES, "site"));
    let run: Awaited<ReturnType<typeof runObs>>;
    try {
      run = await runObs(
        mockArgs(
          site.url,
          "test",
          ["tests/failing-check.obs.ts", "tests/login.obs.ts"],
          ["--reporter", "html", "--capture-screenshots", "--no-stream"],
        ),
        { cwd: project.path, env: CLEAN_ENV, timeoutMs: 150_000 },
      );
    } finally {
      await site.close();
    }
    expect(run.code, run.stderr).to.equal(1);
    expect(existsSync(join(project.path, ".obs", "report.json"))).to.equal(false);
    const server = spawn(process.execPath, [packagePath("bin", "obs.js"), "show-report", "--no-open"], {
      cwd: project.path,
    });
    const exited = new Promise((resolve) => server.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        server.stdout.on("data", (chunk) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.split("\n")[0] ?? "");
        });
        server.once("exit", (code) => reject(new Error(`obs show-report exited ${code}`)));
      });
      const { browser } = session;
      await browser.url(url);
      const failedTest = browser.$("details.test.failed");
      expect(await failedTest.getAttribute("open")).to.not.equal(null);
      const text = await failedTest.getText();
      expect(text).to.include("greets a visitor who never signed in");
      expect(text).to.include("the page shows a sign-in form and no welcome message");
      expect(text).to.include("scroll");
      expect(await browser.$("details.test.passed summary").getText()).to.include("signs in");
      // The failed test is open; a closed test's images load when it is opened.
      const images = await failedTest.$$("img");
      expect(images.length).to.be.greaterThan(0);
      for (const image of images) {
        await image.scrollIntoView({ block: "center" });
        await browser.waitUntil(async () => Number(await image.getProperty("naturalWidth")) > 0, {
          timeout: 10_000,
          timeoutMsg: `image ${await image.getAttribute("src")} did not load`,
        });
      }
      await failedTest.scrollIntoView({ block: "start" });
      await browser.saveScreenshot(join(SHOTS, "html-report-real-run.png"));
    } finally {
      server.kill("SIGINT");
      await exited;
    }
  });
});
