import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import psList from "ps-list";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const FIXTURES = packagePath("test", "fixtures", "checks");

/** A test that opens a page, then waits far longer than the test around it: the run is mid-test when signalled. */
const SLOW_SPEC = `import { test } from "obs/test";

test("waits on the sign-in page", async ({ agent }) => {
  await agent.goto("/login.html");
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
`;

/** Live: a zombie (exited, waiting for a parent to reap it) is not. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The chromedriver and Chromium processes descended from `root`, alive now. */
async function browsersUnder(root: number): Promise<number[]> {
  const processes = await psList();
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of processes) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const descendants = new Set<number>();
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop() as number) ?? []) {
      if (!descendants.has(child)) {
        descendants.add(child);
        queue.push(child);
      }
    }
  }
  return processes
    .filter((process) => descendants.has(process.pid) && /^(chromedriver|chromium|chrome)/.test(process.name))
    .map((process) => process.pid)
    .filter(alive);
}

async function until(done: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("obs test interrupted mid-run (real Chromium, mock provider)", function () {
  this.timeout(120_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let project: ReturnType<typeof tempDir>;
  let child: ChildProcess | undefined;

  before(async () => {
    site = await serveFolder(join(FIXTURES, "site"));
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => {
    project = tempDir("obs-interrupt-");
    mkdirSync(join(project.path, "tests"));
    writeFileSync(join(project.path, "tests", "slow.obs.ts"), SLOW_SPEC);
    cpSync(join(FIXTURES, "transcript.json"), join(project.path, "transcript.json"));
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    project.cleanup();
  });

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${signal} stops every chromedriver and Chromium it started, leaves none of their files, and exits ${code}`, async () => {
      // The system temp folder obs sees: where a session's scratch folder (Chromium's profile) goes.
      const temp = join(project.path, "tmp");
      mkdirSync(temp);
      const started = spawn(
        process.execPath,
        [packagePath("bin", "obs.js"), ...mockArgs(site.url, "test", ["tests/slow.obs.ts"], ["--cache", "off"])],
        { cwd: project.path, env: { ...process.env, ...CLEAN_ENV, TMPDIR: temp } },
      );
      child = started;
      let stderr = "";
      started.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        started.once("exit", (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal })),
      );
      const pid = started.pid as number;
      // The browser is open (driver and Chromium both running) and the test is waiting inside it.
      let browsers: number[] = [];
      await until(
        async () => {
          browsers = await browsersUnder(pid);
          return browsers.length >= 2 && stderr === "";
        },
        "the browser of the slow test",
        60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      browsers = await browsersUnder(pid);
      expect(browsers.length, "chromedriver and Chromium").to.be.at.least(2);

      started.kill(signal);
      const result = await exited;
      expect(result, stderr).to.deep.equal({ code, signal: null });
      expect(stderr).to.include(signal === "SIGINT" ? "obs: interrupted" : "obs: terminated");
      // obs is gone; every browser process it had is gone too (a moment later for Chromium's own children).
      await until(() => browsers.filter(alive).length === 0, `${browsers.filter(alive).join(", ")} to end`, 10_000);
      // Nothing rewrites the session's folder after obs removed it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(readdirSync(temp)).to.deep.equal([]);
    });
  }
});
