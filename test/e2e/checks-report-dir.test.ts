import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { CLEAN_ENV, mockArgs } from "../helpers/mock-checks.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

/** Skipped tests start no browser, yet the run writes every report and reads the action cache. */
const SKIPPED_SPEC = `import { test } from "obs/test";

test.skip("is skipped", async () => {});
`;

const TRANSCRIPT = { schema_version: "obs.mock-transcript/v1", entries: [] };

describe("browser-check runner: the report folder is the user's own", function () {
  this.timeout(60_000);
  let project: ReturnType<typeof tempDir>;
  let victim: string;
  const uid = process.getuid?.() ?? -1;

  beforeEach(() => {
    project = tempDir("obs-report-dir-");
    mkdirSync(join(project.path, "tests"));
    writeFileSync(join(project.path, "tests", "skipped.obs.ts"), SKIPPED_SPEC);
    writeFileSync(join(project.path, "transcript.json"), JSON.stringify(TRANSCRIPT));
    victim = join(project.path, "victim.txt");
    writeFileSync(victim, "mine\n");
    chmodSync(victim, 0o600);
  });
  afterEach(() => project.cleanup());

  const run = (reportDir: string): Promise<CliResult> =>
    runObs(mockArgs("http://127.0.0.1:9", "test", ["tests/skipped.obs.ts"], ["--report-dir", reportDir]), {
      cwd: project.path,
      env: CLEAN_ENV,
    });

  it("refuses a report folder of another user's, and writes nothing through the links in it", async function () {
    // Giving a folder and a link to another user takes root.
    if (uid !== 0) this.skip();
    const shared = join(project.path, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    chownSync(shared, 65534, 65534);
    for (const name of ["report.json", "junit.xml", "action-cache.json.tmp"]) {
      const link = join(shared, name);
      symlinkSync(victim, link);
      lchownSync(link, 65534, 65534);
    }
    const result = await run("shared");
    expect(result.code, result.stdout + result.stderr).to.equal(2);
    expect(result.stderr).to.include(
      `refusing the report folder ${shared}: ${shared} belongs to another user (uid 65534`,
    );
    expect(readFileSync(victim, "utf8")).to.equal("mine\n");
  });

  it("refuses a shared folder as report folder, leaving its mode and what others keep in it", async () => {
    const shared = join(project.path, "shared");
    mkdirSync(join(shared, "screenshots"), { recursive: true });
    chmodSync(shared, 0o1777);
    const result = await run("shared");
    expect(result.code, result.stdout + result.stderr).to.equal(2);
    expect(result.stderr).to.include(`refusing the report folder ${shared}: ${shared} is a shared folder (mode 1777)`);
    expect(statSync(shared).mode & 0o7777).to.equal(0o1777);
    expect(existsSync(join(shared, "screenshots"))).to.equal(true);
  });

  it("writes no report through a link left in its own report folder, and replays no cache of another user's", async function () {
    if (uid !== 0) this.skip();
    const own = join(project.path, "own");
    mkdirSync(own, { mode: 0o700 });
    const link = join(own, "report.json");
    symlinkSync(victim, link);
    lchownSync(link, 65534, 65534);
    const cache = join(own, "action-cache.json");
    writeFileSync(cache, JSON.stringify({ schema_version: "obs.action-cache/v1", entries: [] }));
    chownSync(cache, 65534, 65534);
    const result = await run("own");
    expect(result.code, result.stdout + result.stderr).not.to.equal(0);
    expect(result.stderr).to.include(`ignoring the action cache (${cache} belongs to another user (uid 65534)`);
    expect(result.stderr).to.include(`${link} is a symbolic link`);
    expect(readFileSync(victim, "utf8")).to.equal("mine\n");
  });
});
