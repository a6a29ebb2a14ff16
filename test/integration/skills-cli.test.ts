import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { BUNDLED_SKILLS_DIR } from "../../client/skills/skill-catalog.js";
import { packagePath } from "../../shared/package-root.js";
import { runObs } from "../helpers/obs-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("obs skills", function () {
  this.timeout(30_000);
  let project: ReturnType<typeof tempDir>;
  beforeEach(() => {
    project = tempDir("obs-skills-");
  });
  afterEach(() => project.cleanup());
  const obs = (args: string[], cwd = project.path) => runObs(["skills", ...args], { cwd });
  const skillsDir = () => join(project.path, ".obs", "skills");
  const bundledNames = readdirSync(BUNDLED_SKILLS_DIR)
    .filter((name) => name.endsWith(".md"))
    .map((name) => name.slice(0, -3))
    .sort();

  it("list prints name@version and the description, one skill per line, by name", async () => {
    const result = await obs(["list"]);
    expect(result.code).to.equal(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split("@")[0])).to.deep.equal(bundledNames);
    expect(lines).to.include(
      "forms-and-sign-in@1.0.0 Fill in forms and sign in through labelled fields, passwords and submit buttons, and read validation messages.",
    );
    for (const line of lines) expect(line).to.match(/^[a-z0-9-]+@\d+\.\d+\.\d+ \S/);
  });

  it("view prints a skill exactly; an unknown name is exit 2 naming the skills there are", async () => {
    const result = await obs(["view", "consent-banners"]);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal(readFileSync(join(BUNDLED_SKILLS_DIR, "consent-banners.md"), "utf8"));
    const unknown = await obs(["view", "nope"]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stdout).to.equal("");
    expect(unknown.stderr).to.include('obs: no skill named "nope"; skills: checks-with-evidence, consent-banners');
  });

  it("check passes the bundled skills, fails a broken override with exit 1, and lets warnings pass", async () => {
    const clean = await obs(["check"]);
    expect(clean.code).to.equal(0);
    expect(clean.stdout).to.equal(`${bundledNames.length} skills checked: 0 errors, 0 warnings\n`);

    mkdirSync(skillsDir(), { recursive: true });
    writeFileSync(
      join(skillsDir(), "quiet.md"),
      "---\nname: quiet\nversion: 1.0.0\ndescription: A project skill with no keywords at all.\n---\nBe quiet.\n",
    );
    const warned = await obs(["check"]);
    expect(warned.code).to.equal(0);
    expect(warned.stdout).to.include("warning .obs/skills/quiet.md: no keywords and not always");

    writeFileSync(
      join(skillsDir(), "forms-and-sign-in.md"),
      "---\nname: forms-and-sign-in\nversion: one\ndescription: Broken.\n---\nSee [gone](skill:gone).\n",
    );
    const broken = await obs(["check"]);
    expect(broken.code).to.equal(1);
    expect(broken.stdout).to.include('error   .obs/skills/forms-and-sign-in.md: version "one" is not semver');
    expect(broken.stdout).to.include(
      'error   .obs/skills/forms-and-sign-in.md: links to skill "gone", which does not exist',
    );
    expect(broken.stdout).to.match(/skills checked: 2 errors, 3 warnings\n$/);
  });

  it("improve prints the diff and writes nothing; --write writes the override; a second --write changes nothing", async () => {
    mkdirSync(skillsDir(), { recursive: true });
    copyFileSync(packagePath("test", "fixtures", "skills", "journal.ndjson"), join(skillsDir(), "journal.ndjson"));
    const target = join(skillsDir(), "forms-and-sign-in.md");

    const dryRun = await obs(["improve", "forms-and-sign-in"]);
    expect(dryRun.code).to.equal(0);
    expect(dryRun.stdout).to.include("+++ .obs/skills/forms-and-sign-in.md");
    expect(dryRun.stdout).to.include("-version: 1.0.0\n+version: 1.1.0\n");
    expect(dryRun.stdout).to.include("+- Password field appears after Continue (seen in 2 runs, 0 passing;");
    expect(dryRun.stdout).to.match(
      /forms-and-sign-in: 3 lessons; run with --write to save .obs\/skills\/forms-and-sign-in.md\n$/,
    );
    expect(dryRun.stderr).to.equal(
      "obs: .obs/skills/journal.ndjson:5: skipped: not JSON\nobs: .obs/skills/journal.ndjson:10: skipped: (entry) must have required property 'source'\n",
    );
    expect(readdirSync(skillsDir())).to.deep.equal(["journal.ndjson"]);

    const written = await obs(["improve", "forms-and-sign-in", "--write"]);
    expect(written.stdout).to.equal("forms-and-sign-in: wrote .obs/skills/forms-and-sign-in.md (3 lessons)\n");
    const text = readFileSync(target, "utf8");
    const mtime = statSync(target).mtimeMs;

    const again = await obs(["improve", "forms-and-sign-in", "--write"]);
    expect(again.stdout).to.equal("forms-and-sign-in: .obs/skills/forms-and-sign-in.md is up to date\n");
    expect(readFileSync(target, "utf8")).to.equal(text);
    expect(statSync(target).mtimeMs).to.equal(mtime);

    // The override is what list and view show now, and it passes check.
    expect((await obs(["list"])).stdout).to.match(/^forms-and-sign-in@1\.1\.0 /m);
    expect((await obs(["view", "forms-and-sign-in"])).stdout).to.equal(text);
    expect((await obs(["check"])).code).to.equal(0);

    const nothing = await obs(["improve", "consent-banners"]);
    expect(nothing.code).to.equal(0);
    expect(nothing.stdout).to.match(/^consent-banners: nothing to distill/);
  });

  it("works on the project of the nearest obs.config.ts when run from a folder inside it", async () => {
    writeFileSync(join(project.path, "obs.config.ts"), "export default {};\n");
    mkdirSync(join(project.path, "tests", "deep"), { recursive: true });
    mkdirSync(skillsDir(), { recursive: true });
    writeFileSync(
      join(skillsDir(), "project-only.md"),
      "---\nname: project-only\nversion: 0.1.0\ndescription: A skill only this project has.\nkeywords: [widget]\n---\nUse the widget.\n",
    );
    const result = await obs(["list"], join(project.path, "tests", "deep"));
    expect(result.stdout).to.include("project-only@0.1.0 A skill only this project has.\n");
  });
});
