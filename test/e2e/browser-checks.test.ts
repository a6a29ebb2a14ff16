import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { XMLParser } from "fast-xml-parser";
import psList from "ps-list";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV, mockArgs as fixtureArgs } from "../helpers/mock-checks.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
import { compileSchema } from "../helpers/schema-validator.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const FIXTURES = packagePath("test", "fixtures", "checks");
const validateProgress = compileSchema(
  JSON.parse(readFileSync(packagePath("schemas", "checks", "progress-line.json"), "utf8")) as object,
);

/**
 * What stays in a folder once the browsers of a finished run are gone. A browser removes its
 * own temp files as it exits, which on a loaded machine can end a moment after obs does; what
 * is still there after a few seconds was left behind.
 */
async function leftIn(path: string, waitMs = 5_000): Promise<string[]> {
  const until = Date.now() + waitMs;
  for (;;) {
    const entries = readdirSync(path);
    if (entries.length === 0 || Date.now() >= until) return entries;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("browser checks end to end (real Chromium, mock provider)", function () {
  this.timeout(180_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let project: ReturnType<typeof tempDir>;

  before(async () => {
    site = await serveFolder(join(FIXTURES, "site"));
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => {
    project = tempDir("obs-checks-");
    cpSync(join(FIXTURES, "specs"), join(project.path, "tests"), { recursive: true });
    cpSync(join(FIXTURES, "transcript.json"), join(project.path, "transcript.json"));
  });
  afterEach(() => project.cleanup());

  const obs = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runObs(args, { cwd: project.path, env: { ...CLEAN_ENV, ...env }, timeoutMs: 150_000 });
  /** `obs <command>` on the specs against the fixture site, with the mock provider's transcript. */
  const mockArgs = (command: string, specs: string[], extra: string[] = []) =>
    fixtureArgs(site.url, command, specs, extra);
  const mockRun = (specs: string[], extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    obs(mockArgs("test", specs, extra), env);
  const report = () => JSON.parse(readFileSync(join(project.path, ".obs", "report.json"), "utf8"));
  const junit = () =>
    new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (name) => name === "testsuite" || name === "testcase",
    }).parse(readFileSync(join(project.path, ".obs", "junit.xml"), "utf8")).testsuites;

  it("obs watch re-runs a spec after a real edit, and Ctrl+C mid-run ends it with no browser left", async () => {
    /** Live browser processes: a zombie (exited, waiting for a parent that may never reap it) is not one. */
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    const browsers = async () =>
      (await psList()).filter((process) => /^(chromedriver|chromium|chrome)/.test(process.name) && alive(process.pid))
        .length;
    const before = await browsers();
    const child = spawn(
      process.execPath,
      // Without the action cache every run asks the model, so each run takes as long as the first.
      [packagePath("bin", "obs.js"), ...mockArgs("watch", ["tests/login.obs.ts"], ["--cache", "off"])],
      {
        cwd: project.path,
        env: { ...process.env, ...CLEAN_ENV },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const count = (text: string, part: string) => text.split(part).length - 1;
    const until = async (done: () => boolean | Promise<boolean>, what: string, ms = 90_000) => {
      const deadline = Date.now() + ms;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const pass = "PASS  tests/login.obs.ts > signs in";
    const spec = join(project.path, "tests", "login.obs.ts");
    try {
      await until(() => stderr.includes("waiting for changes"), "the first run");
      expect(count(stdout, pass)).to.equal(1);
      // Nothing changed: a poll or two later, still one run.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(count(stdout, pass)).to.equal(1);
      appendFileSync(spec, "\n// edited\n");
      await until(() => stderr.includes("re-running tests/login.obs.ts"), "the re-run after the edit");
      await until(() => count(stdout, pass) === 2, "the re-run to pass");
      // Ctrl+C while the next run has its browser open.
      appendFileSync(spec, "\n// edited again\n");
      await until(() => count(stderr, "re-running") === 2, "the second re-run");
      await until(async () => (await browsers()) > before, "the browser of the second re-run");
      child.kill("SIGINT");
      expect(await exited, stderr).to.equal(0);
      expect(stderr).to.include("obs watch: stopped");
      // At most as many as before: a browser another test was still closing may have gone too.
      await until(async () => (await browsers()) <= before, "every browser to be gone", 10_000);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("passes a sign-in and a todo spec, with reports, screenshots and progress lines", async () => {
    const result = await mockRun(
      ["tests/login.obs.ts", "tests/todo.obs.ts"],
      ["--capture-screenshots", "--progress-file", "progress.ndjson"],
    );
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    expect(result.stdout).to.include("  PASS  tests/login.obs.ts > signs in");
    expect(result.stdout).to.include("  PASS  tests/todo.obs.ts > adds a todo");
    expect(result.stdout).to.include("  SKIP  tests/todo.obs.ts > filters open todos");
    expect(result.stdout).to.match(/3 tests: 2 passed, 0 failed, 1 skipped/);
    expect(result.stdout).to.include("reports: .obs/report.json, .obs/junit.xml");

    const json = report();
    expect(json.totals).to.deep.equal({ tests: 3, passed: 2, failed: 0, skipped: 1, flaky: 0 });
    const login = json.files[0].tests[0];
    expect(login.steps.map((step: { kind: string; tool: string }) => `${step.kind}:${step.tool}`)).to.deep.equal([
      "goto:navigate",
      "act:type",
      "act:type",
      "act:click",
      "act:done",
      "check:done",
    ]);
    expect(login.steps[3].url).to.equal(`${site.url}/login.html`);
    expect(login.checks).to.deep.equal([
      {
        assertion: "the page greets ada",
        passed: true,
        evidence: 'heading "Welcome, ada"',
        soft: false,
        quote: "Welcome, ada",
        refused: 0,
      },
    ]);
    expect(login.usage.input_tokens).to.be.greaterThan(0);
    expect(login.browser_start_ms).to.be.greaterThan(0);

    const shots = login.steps
      .filter((step: { screenshot: string | null }) => step.screenshot)
      .map((step: { screenshot: string }) => step.screenshot);
    expect(shots).to.have.length(4);
    for (const shot of shots) {
      const png = readFileSync(join(project.path, ".obs", shot));
      expect(png.subarray(1, 4).toString()).to.equal("PNG");
    }

    const suites = junit();
    expect(suites).to.deep.include({ tests: "3", failures: "0", skipped: "1" });
    expect(suites.testsuite[0].testcase[0]["system-out"]).to.include(`[[ATTACHMENT|${shots[0]}]]`);

    const lines = readFileSync(join(project.path, "progress.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    for (const line of lines) expect(validateProgress(line), JSON.stringify(validateProgress.errors)).to.equal(true);
    const loginLines = lines.filter((line) => line.test.name === "signs in").map((line) => line.type);
    expect(loginLines[0]).to.equal("test_start");
    expect(loginLines.at(-1)).to.equal("test_finish");
    expect(loginLines.filter((type) => type === "action")).to.have.length(6);
    expect(loginLines).to.include("frame");
  });

  it("streams live frames no closer than --frame-interval, and per-action screenshots as frames with --no-stream", async () => {
    const frameLines = () =>
      readFileSync(join(project.path, "progress.ndjson"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .filter((line) => line.type === "frame");
    // The page repaints every 40 ms for the 2 s the agent waits: far more frames than 300 ms lets through.
    const streamed = await mockRun(
      ["tests/clock.obs.ts"],
      ["--capture-screenshots", "--frame-interval", "300", "--progress-file", "progress.ndjson"],
    );
    expect(streamed.code, streamed.stdout + streamed.stderr).to.equal(0);
    const frames = frameLines();
    for (const frame of frames) expect(validateProgress(frame), JSON.stringify(validateProgress.errors)).to.equal(true);
    // How many frames fit depends on how long the run took (longer on a loaded machine); the
    // throttle itself is the spacing below.
    expect(frames.length).to.be.at.least(4);
    const times = frames.map((frame) => Date.parse(frame.time));
    // Lines are written just after their frame is admitted, so their times carry the writing's
    // delay, which a loaded machine stretches: the bound leaves room for it and still tells the
    // throttle (300 ms) from the page's repaints (40 ms).
    for (let i = 1; i < times.length; i++) expect((times[i] as number) - (times[i - 1] as number)).to.be.at.least(200);
    for (const frame of frames) {
      expect(frame.path).to.match(
        /^frames\/tests-clock-obs-ts-6673a73b\/watches-the-clock-7a69c3ba\/frame-\d{4}\.jpg$/,
      );
      const jpeg = readFileSync(join(project.path, ".obs", frame.path));
      expect(jpeg.readUInt16BE(0)).to.equal(0xffd8);
    }
    expect(new Set(frames.map((frame) => frame.path)).size).to.equal(frames.length);

    rmSync(join(project.path, "progress.ndjson"));
    const stills = await mockRun(
      ["tests/clock.obs.ts"],
      ["--capture-screenshots", "--no-stream", "--frame-interval", "0", "--progress-file", "progress.ndjson"],
    );
    expect(stills.code, stills.stdout + stills.stderr).to.equal(0);
    // goto and wait are the actions with screenshots; the run's earlier frames are gone.
    expect(frameLines().map((frame) => frame.path)).to.deep.equal([
      "screenshots/tests-clock-obs-ts-6673a73b/watches-the-clock-7a69c3ba/step-001.png",
      "screenshots/tests-clock-obs-ts-6673a73b/watches-the-clock-7a69c3ba/step-002.png",
    ]);
    expect(existsSync(join(project.path, ".obs", "frames"))).to.equal(false);
  });

  it("replays a passing run from the action cache with no model call, and heals when the page changes", async () => {
    cpSync(join(FIXTURES, "site"), join(project.path, "site"), { recursive: true });
    const own = await serveFolder(join(project.path, "site"));
    writeFileSync(
      join(project.path, "silent.json"),
      JSON.stringify({ schema_version: "obs.mock-transcript/v1", entries: [] }),
    );
    const run = (transcript: string, cache: string) =>
      obs(fixtureArgs(own.url, "test", ["tests/login.obs.ts"], ["--cache", cache], transcript));
    const cacheFile = join(project.path, ".obs", "action-cache.json");
    const tools = () =>
      report().files[0].tests[0].steps.map((step: { tool: string; text: string | null }) =>
        step.text === "(replayed from the action cache)" ? `${step.tool}*` : step.tool,
      );
    try {
      const first = await run("transcript.json", "read-write");
      expect(first.code, first.stdout + first.stderr).to.equal(0);
      expect(report().cache).to.deep.equal({ mode: "read-write", hits: 0, misses: 2 });
      expect(first.stdout).to.include("action cache (read-write): 0 replayed, 2 asked the model");
      const recorded = JSON.parse(readFileSync(cacheFile, "utf8"));
      expect(recorded.entries.map((entry: { instruction: string }) => entry.instruction).sort()).to.deep.equal([
        "sign in as ada with %password%",
        "the page greets ada",
      ]);

      // A transcript with no entries: any model call would fail the test.
      const replay = await run("silent.json", "read-write");
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
      expect(report().cache).to.deep.equal({ mode: "read-write", hits: 2, misses: 0 });
      expect(report().usage).to.deep.equal({ input_tokens: 0, output_tokens: 0 });
      expect(tools()).to.deep.equal(["navigate", "type*", "type*", "click*", "done*", "done*"]);

      // The field's label changed: its cached action misses, the model signs in, the entry is rewritten.
      const page = join(project.path, "site", "login.html");
      writeFileSync(
        page,
        readFileSync(page, "utf8").replace(
          '<label for="username">Username</label>',
          '<label for="username">Username or email</label>',
        ),
      );
      const healed = await run("transcript.json", "read-write");
      expect(healed.code, healed.stdout + healed.stderr).to.equal(0);
      expect(report().cache).to.deep.equal({ mode: "read-write", hits: 1, misses: 1 });
      expect(readFileSync(cacheFile, "utf8")).to.include('"label": "Username or email"');
      const again = await run("silent.json", "read-only");
      expect(again.code, again.stdout + again.stderr).to.equal(0);
      expect(report().cache).to.deep.equal({ mode: "read-only", hits: 2, misses: 0 });

      // read-only never writes the file; off never reads it.
      const before = readFileSync(cacheFile, "utf8");
      const off = await run("silent.json", "off");
      expect(off.code).to.equal(1);
      expect(report().files[0].tests[0].failure.message).to.match(/the mock transcript has no entry/);
      rmSync(cacheFile);
      const readOnly = await run("transcript.json", "read-only");
      expect(readOnly.code, readOnly.stderr).to.equal(0);
      expect(existsSync(cacheFile)).to.equal(false);
      expect(before).to.include('"schema_version": "obs.action-cache/v1"');
    } finally {
      await own.close();
    }
  });

  it("fails a check that does not hold, with the model's evidence, exit 1", async () => {
    const result = await mockRun(["tests/failing-check.obs.ts"]);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.include("  FAIL  tests/failing-check.obs.ts > greets a visitor who never signed in");
    const test = report().files[0].tests[0];
    expect(test.failure).to.deep.equal({
      kind: "check_failed",
      message:
        'check failed: "the page shows a welcome message for ada": the page shows a sign-in form and no welcome message',
    });
    expect(test.checks[0]).to.deep.include({ passed: false });
    const failure = junit().testsuite[0].testcase[0].failure;
    expect(failure.type).to.equal("check_failed");
  });

  it("stops an agent repeating an action on a page that never changes", async () => {
    const result = await mockRun(["tests/stall.obs.ts"]);
    expect(result.code).to.equal(1);
    const test = report().files[0].tests[0];
    expect(test.failure.kind).to.equal("stall");
    expect(test.failure.message).to.match(
      /^no progress: click \{"index":1\} was repeated 3 times and the page did not change$/,
    );
    expect(test.steps.filter((step: { kind: string }) => step.kind === "act")).to.have.length(3);
    // The runner wrote down the cause of the stall in the skills journal, as a failed run.
    const journal = readFileSync(join(project.path, ".obs", "skills", "journal.ndjson"), "utf8")
      .trim()
      .split("\n");
    expect(journal.map((line) => JSON.parse(line))).to.deep.equal([
      {
        schema_version: "obs.skill-journal/v1",
        recorded_at: JSON.parse(journal[0] as string).recorded_at,
        skill: "waiting-for-content",
        lesson:
          '"load more archive entries" stalled: click button "Load more" was repeated 3 times and the page did not change; wait for the page or choose another element',
        source: "runner",
        kind: "stall",
        site: site.url,
        test: { file: "tests/stall.obs.ts", name: "loads more archive entries" },
        step: 4,
        instruction: "load more archive entries",
        passed: false,
      },
    ]);
  });

  it("journals what a run learned, and obs skills improve distills it into a project skill", async () => {
    const result = await mockRun(["tests/lessons.obs.ts"]);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    const entries = readFileSync(join(project.path, ".obs", "skills", "journal.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(
      entries.map((entry) => [entry.source, entry.kind, entry.skill, entry.lesson, entry.step, entry.passed]),
    ).to.deep.equal([
      [
        "agent",
        "lesson",
        "forms-and-sign-in",
        "The login form has no passkey option; use the Sign in button.",
        3,
        true,
      ],
      [
        "runner",
        "resolved_after_retries",
        "forms-and-sign-in",
        '"sign in as ada with %password%" was carried out by: click button "Sign in" (after 1 failed attempt)',
        7,
        true,
      ],
    ]);
    // What the agent typed (the action's evidence) never reaches the journal.
    expect(JSON.stringify(entries)).not.to.match(/typed/);

    const dryRun = await obs(["skills", "improve", "forms-and-sign-in"]);
    expect(dryRun.code, dryRun.stderr).to.equal(0);
    expect(dryRun.stdout).to.include("+## Learned from runs");
    expect(dryRun.stdout).to.include(
      `+- The login form has no passkey option; use the Sign in button (seen in 1 run, 1 passing; last ${entries[0].recorded_at.slice(0, 10)}; ${site.url})`,
    );
    expect(existsSync(join(project.path, ".obs", "skills", "forms-and-sign-in.md"))).to.equal(false);
    const written = await obs(["skills", "improve", "forms-and-sign-in", "--write"]);
    expect(written.stdout).to.equal("forms-and-sign-in: wrote .obs/skills/forms-and-sign-in.md (2 lessons)\n");
    const listed = await obs(["skills", "list"]);
    expect(listed.stdout).to.match(/^forms-and-sign-in@1\.1\.0 /m);
  });

  it("runs tests concurrently with --workers 2: the verdicts and order of one worker, a lost browser failing only its test", async () => {
    // The slowest test first, as a suite would order it to finish soonest.
    const specs = ["tests/crash.obs.ts", "tests/login.obs.ts", "tests/todo.obs.ts", "tests/failing-check.obs.ts"];
    type Test = {
      id: string;
      status: string;
      failure: { kind: string } | null;
      started_at: string;
      duration_ms: number;
    };
    const tests = (json: { files: { tests: Test[] }[] }) => json.files.flatMap((file) => file.tests);
    const verdicts = (json: { files: { tests: Test[] }[] }) =>
      tests(json).map((test) => `${test.id}: ${test.status} ${test.failure?.kind ?? ""}`.trim());
    /** Whether any two tests ran at the same time. */
    const overlapping = (json: { files: { tests: Test[] }[] }) => {
      const spans = tests(json)
        .filter((test) => test.status !== "skipped")
        .map((test) => [Date.parse(test.started_at), Date.parse(test.started_at) + test.duration_ms] as const)
        .sort((a, b) => a[0] - b[0]);
      return spans.some((span, i) => i > 0 && span[0] < (spans[i - 1] as readonly [number, number])[1]);
    };

    const one = await mockRun(specs, ["--workers", "1"]);
    expect(one.code, one.stdout + one.stderr).to.equal(1);
    const serial = report();
    const two = await mockRun(specs, ["--workers", "2"]);
    expect(two.code, two.stdout + two.stderr).to.equal(1);
    const parallel = report();

    expect(verdicts(serial)).to.deep.equal([
      "tests/crash.obs.ts > loses its browser mid-test: failed error",
      "tests/login.obs.ts > signs in: passed",
      "tests/todo.obs.ts > adds a todo: passed",
      "tests/todo.obs.ts > filters open todos: skipped",
      "tests/failing-check.obs.ts > greets a visitor who never signed in: failed check_failed",
    ]);
    expect(verdicts(parallel)).to.deep.equal(verdicts(serial));
    expect(overlapping(serial), "one worker ran tests at the same time").to.equal(false);
    expect(overlapping(parallel), "two workers never ran tests at the same time").to.equal(true);
    console.log(`      one worker ${serial.duration_ms} ms, two workers ${parallel.duration_ms} ms`);
  });

  it("stops at --max-steps", async () => {
    const result = await mockRun(["tests/stall.obs.ts"], ["--max-steps", "2", "--reporter", "json"]);
    expect(result.code).to.equal(1);
    const test = report().files[0].tests[0];
    expect(test.failure.kind).to.equal("max_steps");
    expect(test.steps.filter((step: { kind: string }) => step.kind === "act")).to.have.length(2);
    expect(existsSync(join(project.path, ".obs", "junit.xml"))).to.equal(false);
    expect(result.stdout).to.equal("");
  });

  it("refuses a missing key, an unknown provider or a missing browser with exit 2 before any browser starts", async () => {
    const noKey = await obs(["test", "tests/login.obs.ts", "--provider", "openai"]);
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.equal(
      "obs: the openai provider needs an API key: set OPENAI_API_KEY (preferred) or pass --api-key\n",
    );
    const unknown = await obs(["test", "tests/login.obs.ts", "--provider", "gemini"]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/unknown provider "gemini"/);
    const noBrowser = await obs(
      ["test", "tests/login.obs.ts", "--provider", "mock", "--mock-transcript", "transcript.json"],
      {
        OBS_CHROMIUM_PATH: join(project.path, "no-chromium"),
      },
    );
    expect(noBrowser.code).to.equal(2);
    expect(noBrowser.stderr).to.include(
      "engine_a (Chromium) needs chromium: install with `apt-get install chromium chromium-driver`",
    );
    const headed = await obs(
      ["test", "tests/login.obs.ts", "--headed", "--provider", "mock", "--mock-transcript", "transcript.json"],
      {
        DISPLAY: "",
        WAYLAND_DISPLAY: "",
      },
    );
    expect(headed.code).to.equal(2);
    expect(headed.stderr).to.match(/--headed needs a display/);
    const noGecko = await obs(mockArgs("test", ["tests/login.obs.ts"], ["--browser", "engine_b"]), {
      OBS_GECKODRIVER_PATH: join(project.path, "no-geckodriver"),
    });
    expect(noGecko.code).to.equal(2);
    expect(noGecko.stderr).to.match(/^obs: engine_b \(Firefox\) needs (firefox-esr and )?geckodriver: install Firefox/);
    expect(noGecko.stderr).to.include("Debian does not package geckodriver");
    const noWebKit = await obs(mockArgs("test", ["tests/login.obs.ts"], ["--browser", "engine_c"]), {
      OBS_WEBKITWEBDRIVER_PATH: join(project.path, "no-webkitwebdriver"),
    });
    expect(noWebKit.code).to.equal(2);
    expect(noWebKit.stderr).to.match(
      /^obs: engine_c \(WebKitGTK\) needs webkit2gtk-driver: install with `apt-get install webkit2gtk-driver xvfb`/,
    );
    const engineD = await obs(mockArgs("test", ["tests/login.obs.ts"], ["--browser", "engine_d"]), {
      OBS_ENGINE_D_URL: "",
    });
    expect(engineD.code).to.equal(2);
    expect(engineD.stderr).to.match(/engine_d is experimental .* set OBS_ENGINE_D_URL/);
    // A docker CLI with no engine behind it (this machine's case), made certain by an address nothing serves.
    const noEngine = await obs(mockArgs("test", ["tests/login.obs.ts"], ["--containerized"]), {
      DOCKER_HOST: `unix://${join(project.path, "no-docker.sock")}`,
    });
    expect(noEngine.code).to.equal(2);
    expect(noEngine.stderr).to.match(
      /^obs: --containerized needs a container engine, and none is reachable \(.+\); start Docker \(or point DOCKER_HOST at one\), or run without --containerized\n$/,
    );
    const containerizedWebKit = await obs(
      mockArgs("test", ["tests/login.obs.ts"], ["--containerized", "--browser", "engine_c"]),
    );
    expect(containerizedWebKit.code).to.equal(2);
    expect(containerizedWebKit.stderr).to.match(/--containerized runs engine_a or engine_d, not engine_c/);
    expect(existsSync(join(project.path, ".obs"))).to.equal(false);
  });

  it("runs the fixture suite on engine_c (WebKitGTK under Xvfb) with the verdicts of engine_a, leaving no temp files", async () => {
    const specs = ["tests/login.obs.ts", "tests/todo.obs.ts", "tests/failing-check.obs.ts"];
    const verdicts = () =>
      report().files.flatMap((file: { tests: { id: string; status: string; steps: unknown[] }[] }) =>
        file.tests.map((test) => `${test.id}: ${test.status} after ${test.steps.length} steps`),
      );
    // Chromium, chromedriver and xvfb-run write to the temp folder; every run must take its files away.
    const temp = tempDir("obs-e2e-tmp-");
    try {
      const chromium = await mockRun(specs, [], { TMPDIR: temp.path });
      expect(chromium.code, chromium.stderr).to.equal(1);
      expect(await leftIn(temp.path), "left in the temp folder by engine_a").to.deep.equal([]);
      const onChromium = verdicts();
      const webkit = await mockRun(specs, ["--browser", "engine_c", "--capture-screenshots"], {
        DISPLAY: "",
        TMPDIR: temp.path,
      });
      expect(webkit.code, webkit.stdout + webkit.stderr).to.equal(1);
      expect(await leftIn(temp.path), "left in the temp folder by engine_c").to.deep.equal([]);
      expect(webkit.stdout).to.include("on engine_c with mock");
      expect(verdicts()).to.deep.equal(onChromium);
      expect(onChromium).to.include("tests/login.obs.ts > signs in: passed after 6 steps");
      // No screencast outside Chromium: frames are the per-action screenshots, which WebKit takes too.
      const shot = report().files[0].tests[0].steps[1].screenshot;
      expect(
        readFileSync(join(project.path, ".obs", shot))
          .subarray(1, 4)
          .toString(),
      ).to.equal("PNG");
    } finally {
      temp.cleanup();
    }
  });

  it("lists tests without a browser, and scaffolds a starter spec that never overwrites", async () => {
    const listed = await obs(["list", "tests"]);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.include("tests/todo.obs.ts > filters open todos  (skipped)");
    expect(listed.stdout).to.match(/8 tests in 7 files\n$/);

    const init = await obs(["init"]);
    expect(init.code, init.stderr).to.equal(0);
    expect(init.stdout).to.match(/^wrote tests\/homepage\.obs\.ts\n/);
    const again = await obs(["init"]);
    expect(again.code).to.equal(2);
    expect(again.stderr).to.equal("obs: tests/homepage.obs.ts already exists; obs init never overwrites a file\n");
    const starter = await obs(["list", "tests/homepage.obs.ts"]);
    expect(starter.stdout).to.equal("tests/homepage.obs.ts > homepage shows its main heading\n1 tests in 1 files\n");
    expect(existsSync(join(project.path, ".obs"))).to.equal(false);
  });

  it("takes its settings from obs.config.ts, and refuses an invalid one naming the field", async () => {
    writeFileSync(
      join(project.path, "obs.config.ts"),
      `import { defineConfig } from "obs/test";
export default defineConfig({ baseUrl: "${site.url}", provider: "mock", mockTranscript: "transcript.json", reporter: "json", reportDir: "out" });
`,
    );
    const result = await obs(["test", "tests/login.obs.ts"]);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    // Only the JSON reporter, and the action cache goes to the configured report directory too.
    expect(readdirSync(join(project.path, "out")).sort()).to.deep.equal(["action-cache.json", "report.json"]);

    writeFileSync(join(project.path, "obs.config.ts"), `export default { provider: "mock", maxSteps: -1 };\n`);
    const invalid = await obs(["test", "tests/login.obs.ts"]);
    expect(invalid.code).to.equal(2);
    expect(invalid.stderr).to.equal(`obs: ${join(project.path, "obs.config.ts")}: maxSteps must be >= 1\n`);
  });
});
