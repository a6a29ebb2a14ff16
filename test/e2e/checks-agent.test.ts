import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const SITE = packagePath("test", "fixtures", "checks", "site");
const SECRET = "lovelace";

type Call = { tool: string; args?: Record<string, unknown> };
type Entry = { test: string; instruction?: string; calls: Call[] };

/** Every file under `root`, relative to it. */
function filesUnder(root: string, prefix = ""): string[] {
  return readdirSync(join(root, prefix)).flatMap((name) => {
    const path = join(prefix, name);
    return statSync(join(root, path)).isDirectory() ? filesUnder(root, path) : [path];
  });
}

interface StepJson {
  kind: string;
  tool: string;
  ok: boolean;
  evidence: string;
  target: { index: number; role: string; label: string } | null;
}
interface TestJson {
  name: string;
  status: string;
  failure: { kind: string; message: string } | null;
  steps: StepJson[];
  checks: { passed: boolean; quote: string | null; refused: number }[];
}

describe("browser checks: the agent's honesty (real Chromium, mock provider)", function () {
  this.timeout(180_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let project: ReturnType<typeof tempDir>;
  /** The transcript lives outside the project, so a grep of the project finds only what obs wrote. */
  let outside: ReturnType<typeof tempDir>;

  before(async () => {
    site = await serveFolder(SITE);
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => {
    project = tempDir("obs-agent-");
    outside = tempDir("obs-agent-transcript-");
  });
  afterEach(() => {
    project.cleanup();
    outside.cleanup();
  });

  /** Writes the specs and the transcript, then runs `obs test` on the specs against the fixture site. */
  const run = (
    specs: Record<string, string>,
    entries: Entry[],
    extra: string[] = [],
    env: NodeJS.ProcessEnv = {},
  ): Promise<CliResult> => {
    for (const [name, source] of Object.entries(specs)) writeFileSync(join(project.path, name), source);
    const transcript = join(outside.path, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ schema_version: "obs.mock-transcript/v1", entries }));
    return runObs(mockArgs(site.url, "test", Object.keys(specs), extra, transcript), {
      cwd: project.path,
      env: { ...CLEAN_ENV, ...env },
      timeoutMs: 150_000,
    });
  };
  const report = () => JSON.parse(readFileSync(join(project.path, ".obs", "report.json"), "utf8"));
  const test = (name: string): TestJson => {
    const found = report()
      .files.flatMap((file: { tests: TestJson[] }) => file.tests)
      .find((candidate: TestJson) => candidate.name === name);
    if (!found) throw new Error(`no test "${name}" in report.json`);
    return found;
  };

  it("fails a false verdict whose quote is not on the page, passes a true one, and fails an act whose target does not exist unless optional", async () => {
    const shop = `import { test } from "obs/test";

test("believes the total is 40.00", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.check("the total is 40.00");
});

test("reads the total as 30.00", async ({ agent }) => {
  await agent.goto("/shop.html");
  const verdict = await agent.check("the total is 30.00");
  if (verdict.quote !== "Total: 30.00") throw new Error("the verdict's quote is " + verdict.quote);
});

test("checks out", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.act("check out");
});

test("pays with a button that does not exist", async ({ agent }) => {
  await agent.goto("/shop.html");
  await agent.act("press Pay now");
});

test("may pay with a button that does not exist", async ({ agent }) => {
  await agent.goto("/shop.html");
  const result = await agent.act("press Pay now", { optional: true });
  if (result.ok !== false) throw new Error("an optional act that failed returned ok: " + result.ok);
});
`;
    const insisting: Call[] = [
      { tool: "done", args: { quote: "Total: 40.00", evidence: "the cart reads Total: 40.00" } },
      { tool: "done", args: { quote: "Total: 40.00", evidence: "the cart reads Total: 40.00" } },
    ];
    const missing: Call[] = [
      { tool: "click", args: { target: "Pay now" } },
      { tool: "done", args: { evidence: "paid" } },
      { tool: "done", args: { evidence: "paid" } },
    ];
    const result = await run({ "shop.obs.ts": shop }, [
      { test: "believes the total is 40.00", calls: insisting },
      { test: "reads the total as 30.00", calls: [{ tool: "done", args: { quote: "Total: 30.00", evidence: "ok" } }] },
      {
        test: "checks out",
        calls: [
          { tool: "click", args: { target: "Checkout" } },
          { tool: "done", args: { evidence: "the order is processing" } },
        ],
      },
      { test: "pays with a button that does not exist", calls: missing },
      { test: "may pay with a button that does not exist", calls: missing },
    ]);
    expect(result.code, result.stdout + result.stderr).to.equal(1);

    const lie = test("believes the total is 40.00");
    expect(lie.status).to.equal("failed");
    expect(lie.failure).to.deep.equal({
      kind: "check_failed",
      message:
        'check failed: "the total is 40.00": the evidence was not on the page (the quote "Total: 40.00" is not on it)',
    });
    expect(lie.checks).to.deep.equal([
      {
        assertion: "the total is 40.00",
        passed: false,
        evidence: 'the evidence was not on the page (the quote "Total: 40.00" is not on it)',
        soft: false,
        quote: null,
        refused: 2,
      },
    ]);
    expect(lie.steps.filter((step) => step.kind === "check").map((step) => [step.tool, step.ok])).to.deep.equal([
      ["done", false],
      ["done", false],
    ]);

    const truth = test("reads the total as 30.00");
    expect(truth.status, JSON.stringify(truth.failure)).to.equal("passed");
    expect(truth.checks[0]).to.deep.include({ passed: true, quote: "Total: 30.00", refused: 0 });

    const checkout = test("checks out");
    expect(checkout.status, JSON.stringify(checkout.failure)).to.equal("passed");
    const click = checkout.steps.find((step) => step.tool === "click");
    expect(click?.evidence).to.equal('clicked button "Checkout"');
    expect(click?.target).to.deep.include({ role: "button", label: "Checkout" });
    expect(click?.target?.index).to.be.a("number");

    const missingTarget = test("pays with a button that does not exist");
    expect(missingTarget.failure).to.deep.equal({
      kind: "act_failed",
      message:
        'could not "press Pay now": the last action failed: click element [-1] (there is no element [-1] in the latest snapshot)',
    });
    expect(missingTarget.steps[1]).to.deep.include({
      tool: "click",
      ok: false,
      evidence: "there is no element [-1] in the latest snapshot",
      target: null,
    });
    const optional = test("may pay with a button that does not exist");
    expect(optional.status, JSON.stringify(optional.failure)).to.equal("passed");
    expect(result.stdout).to.include("5 tests: 3 passed, 2 failed");
  });

  it("signs in with a named secret that reaches only the browser: no file of the project holds it", async () => {
    const spec = `import { test } from "obs/test";

test("signs in", async ({ agent }) => {
  await agent.goto("/login.html");
  await agent.act("sign in as ada with %password%", { secrets: { password: process.env.SHOP_PASSWORD ?? "" } });
  await agent.check("the page greets ada");
});
`;
    const result = await run(
      { "login.obs.ts": spec },
      [
        {
          test: "signs in",
          instruction: "sign in",
          calls: [
            { tool: "type", args: { target: "Username", text: "ada" } },
            { tool: "type", args: { target: "Password", text: "%password%" } },
            // A model that writes the value down anyway (it cannot know it; a script can).
            { tool: "record_lesson", args: { lesson: `The password ${SECRET} signs ada in.` } },
            { tool: "click", args: { target: "Sign in" } },
            { tool: "done", args: { evidence: `signed in with ${SECRET}` } },
          ],
        },
        {
          test: "signs in",
          instruction: "greets ada",
          calls: [{ tool: "done", args: { quote: "Welcome, ada", evidence: "the heading" } }],
        },
      ],
      ["--capture-screenshots", "--progress-file", "progress.ndjson"],
      { SHOP_PASSWORD: SECRET },
    );
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    const signIn = test("signs in");
    expect(signIn.steps.map((step) => [step.tool, step.evidence])).to.deep.include.members([
      ["type", 'typed "ada" into textbox "Username"'],
      ["type", 'typed "%password%" into input[type=password] "Password"'],
      ["click", 'clicked button "Sign in"'],
    ]);
    expect(signIn.steps[1]?.target).to.deep.equal({ index: 1, role: "textbox", label: "Username" });
    expect(signIn.checks[0]).to.deep.include({ passed: true, quote: "Welcome, ada" });

    // Distilling the journal into a skill writes what the journal holds.
    const improved = await runObs(["skills", "improve", "forms-and-sign-in", "--write"], {
      cwd: project.path,
      env: CLEAN_ENV,
    });
    expect(improved.code, improved.stderr).to.equal(0);

    const files = filesUnder(project.path);
    expect(files).to.include.members([
      join(".obs", "report.json"),
      join(".obs", "junit.xml"),
      join(".obs", "action-cache.json"),
      join(".obs", "skills", "journal.ndjson"),
      join(".obs", "skills", "forms-and-sign-in.md"),
      "progress.ndjson",
    ]);
    expect(readFileSync(join(project.path, ".obs", "skills", "journal.ndjson"), "utf8")).to.include(
      "The password %password% signs ada in.",
    );
    expect(readFileSync(join(project.path, ".obs", "action-cache.json"), "utf8")).to.include('"text": "%password%"');
    const leaking = files.filter((file) => readFileSync(join(project.path, file)).includes(SECRET));
    expect(leaking, "files holding the secret").to.deep.equal([]);
  });

  it("never caches a password the model typed literally, which no spec named", async () => {
    const spec = `import { test } from "obs/test";

test("signs in typing the password itself", async ({ agent }) => {
  await agent.goto("/login.html");
  await agent.act("sign in as ada");
  await agent.check("the page greets ada");
});
`;
    const result = await run({ "typed.obs.ts": spec }, [
      {
        test: "signs in typing the password itself",
        instruction: "sign in",
        calls: [
          { tool: "type", args: { target: "Username", text: "ada" } },
          { tool: "type", args: { target: "Password", text: SECRET } },
          { tool: "click", args: { target: "Sign in" } },
          { tool: "done", args: { evidence: "signed in" } },
        ],
      },
      {
        test: "signs in typing the password itself",
        instruction: "greets ada",
        calls: [{ tool: "done", args: { quote: "Welcome, ada", evidence: "the heading" } }],
      },
    ]);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    const cache = readFileSync(join(project.path, ".obs", "action-cache.json"), "utf8");
    expect(cache).not.to.include(SECRET);
    // The check is cached; the sign-in, whose password has no name to store it by, is not.
    expect(JSON.parse(cache).entries.map((entry: { instruction: string }) => entry.instruction)).to.deep.equal([
      "the page greets ada",
    ]);
    const typed = test("signs in typing the password itself").steps.find((step) => step.target?.label === "Password");
    expect(typed?.evidence).to.equal('typed "%typed_secret%" into input[type=password] "Password"');
    expect(readFileSync(join(project.path, ".obs", "report.json"), "utf8")).not.to.include(SECRET);
  });
});
