import { readFileSync } from "node:fs";
import { expect } from "chai";
import { BUNDLED_SKILLS_DIR, loadCatalog } from "../../../../client/skills/skill-catalog.js";
import { checkSkills, type SkillSource } from "../../../../client/skills/skill-check.js";
import { parseSkill, renderSkill } from "../../../../client/skills/skill-document.js";

const good = (name: string, extra = "", body = "Do the thing carefully.\n") =>
  `---\nname: ${name}\nversion: 1.0.0\ndescription: A description that is long enough.\nkeywords: [thing]\n${extra}---\n${body}`;

function check(files: Record<string, string>, existing: string[] = []) {
  const sources: SkillSource[] = Object.entries(files).map(([path, text]) => ({
    path,
    source: path.startsWith("/project/") ? "project" : "bundled",
    text,
  }));
  return checkSkills(sources, (path) => existing.includes(path)).map(
    (entry) => `${entry.level} ${entry.path}: ${entry.message}`,
  );
}

describe("skills check", () => {
  it("passes every bundled skill, of which there are at least five with name, semver and description", () => {
    const { skills } = loadCatalog("/nonexistent-project");
    expect(skills.length).to.be.at.least(5);
    const sources = skills.map((skill) => ({ path: skill.path, source: skill.source, text: skill.text }));
    expect(checkSkills(sources, () => true)).to.deep.equal([]);
    for (const skill of skills) expect(skill.path.startsWith(BUNDLED_SKILLS_DIR)).to.equal(true);
  });

  it("accepts a good skill, and links to existing skills and files", () => {
    expect(
      check(
        {
          "/b/one.md": good(
            "one",
            "",
            "See [two](skill:two) and [notes](notes.md#part) and [web](https://example.com).\n",
          ),
          "/b/two.md": good("two"),
        },
        ["/b/notes.md"],
      ),
    ).to.deep.equal([]);
  });

  it("reports each hard error", () => {
    expect(
      check({
        "/b/none.md": "# no front matter\n",
        "/b/bad-yaml.md": "---\nname: [unclosed\n---\nbody\n",
        "/b/Bad_Name.md": good("Bad_Name"),
        "/b/noversion.md":
          "---\nname: noversion\ndescription: A description that is long enough.\nkeywords: [x]\n---\nbody\n",
        "/b/badver.md": good("badver").replace("version: 1.0.0", "version: v1"),
        "/b/nodesc.md": "---\nname: nodesc\nversion: 1.0.0\nkeywords: [x]\n---\nbody\n",
        "/b/empty.md": good("empty", "", "\n  \n"),
        "/b/kinds.md": good("kinds", "applies_to: [click]\n"),
        "/b/links.md": good("links", "", "See [x](skill:missing) and [y](gone.md).\n"),
        "/b/dup-a.md": good("dup"),
        "/b/dup-b.md": good("dup"),
      }),
    ).to.deep.equal([
      'error /b/Bad_Name.md: name "Bad_Name" must be lowercase letters and digits in words joined by "-", at most 64 characters',
      "error /b/bad-yaml.md: front matter is not valid YAML: unexpected end of the stream within a flow collection (1:16)",
      'error /b/badver.md: version "v1" is not semver (e.g. 1.2.0)',
      "warning /b/dup-a.md: file name should be dup.md",
      'error /b/dup-b.md: name "dup" is already used by /b/dup-a.md',
      "warning /b/dup-b.md: file name should be dup.md",
      "error /b/empty.md: the body is empty: a skill needs instructions",
      "error /b/kinds.md: applies_to must be a list of act and check",
      'error /b/links.md: links to skill "missing", which does not exist',
      "error /b/links.md: links to gone.md, which does not exist",
      "error /b/nodesc.md: front matter has no description",
      "error /b/none.md: no front matter (the file must start with a --- block)",
      "error /b/noversion.md: front matter has no version",
    ]);
  });

  it("warns without failing: long or short descriptions, no keywords, an older override", () => {
    const long = "x".repeat(201);
    const result = check({
      "/b/base.md": good("base").replace("version: 1.0.0", "version: 2.0.0"),
      "/project/base.md": good("base"),
      "/b/long.md": good("long").replace("A description that is long enough.", long),
      "/b/short.md": good("short").replace("A description that is long enough.", "Short."),
      "/b/quiet.md": good("quiet").replace("keywords: [thing]\n", ""),
    });
    expect(result).to.deep.equal([
      "warning /b/long.md: description is 201 characters; keep it under 200",
      "warning /b/quiet.md: no keywords and not always: the agent never selects this skill",
      "warning /b/short.md: description is only 6 characters; say what the skill is for",
      "warning /project/base.md: overrides bundled base@2.0.0 with an older version 1.0.0",
    ]);
  });
});

describe("skill documents", () => {
  it("render back to the same text they were parsed from", () => {
    const path = `${BUNDLED_SKILLS_DIR}/consent-banners.md`;
    const skill = parseSkill(readFileSync(path, "utf8"), path, "bundled");
    expect(renderSkill(skill.frontMatter, skill.body)).to.equal(skill.text);
  });
});
