import { expect } from "chai";
import { parseSkill } from "../../../../client/skills/skill-document.js";
import { MAX_SKILLS_PER_INSTRUCTION, mentions, selectSkills } from "../../../../client/skills/skill-selection.js";

function skill(name: string, meta: string): ReturnType<typeof parseSkill> {
  return parseSkill(
    `---\nname: ${name}\nversion: 1.0.0\ndescription: d\n${meta}\n---\nbody\n`,
    `${name}.md`,
    "bundled",
  );
}

const names = (selected: ReturnType<typeof selectSkills>) =>
  selected.map((entry) => [entry.skill.frontMatter.name, entry.score]);

describe("skill selection rule", () => {
  it("matches keywords as whole words, case-insensitively, phrases across any spacing", () => {
    expect(mentions("Fill the Form", "form")).to.equal(true);
    expect(mentions("more information", "form")).to.equal(false);
    expect(mentions("please sign   in now", "sign in")).to.equal(true);
    expect(mentions("signing", "sign in")).to.equal(false);
    expect(mentions("a (cookie) notice", "cookie")).to.equal(true);
  });

  it("scores 2 per keyword in the instruction and 1 per keyword in the page's element labels", () => {
    const skills = [skill("forms", "keywords: [password, sign in]"), skill("lists", "keywords: [row, table]")];
    const selected = selectSkills(skills, { kind: "act", instruction: "Sign in as ada", labels: ["Password", "Rows"] });
    expect(names(selected)).to.deep.equal([["forms", 3]]);
  });

  it("keeps a skill to its kinds, includes always skills, orders by score then name, and caps the count", () => {
    const skills = [
      skill("zeta", "keywords: [todo]"),
      skill("alpha", "keywords: [todo]"),
      skill("acting", "applies_to: [act]\nkeywords: [todo, list]"),
      skill("checking", "applies_to: [check]\nalways: true"),
      skill("beta", "keywords: [todo]"),
    ];
    expect(
      names(selectSkills(skills, { kind: "act", instruction: "add a todo to the list", labels: [] })),
    ).to.deep.equal([
      ["acting", 4],
      ["alpha", 2],
      ["beta", 2],
    ]);
    expect(MAX_SKILLS_PER_INSTRUCTION).to.equal(3);
    expect(names(selectSkills(skills, { kind: "check", instruction: "nothing matches", labels: [] }))).to.deep.equal([
      ["checking", 0],
    ]);
  });

  it("chooses the bundled forms skill for a sign-in page and the check skill for every check", async () => {
    const { loadCatalog } = await import("../../../../client/skills/skill-catalog.js");
    const { skills } = loadCatalog("/nonexistent-project");
    const act = selectSkills(skills, {
      kind: "act",
      instruction: "sign in as ada",
      labels: ["Username", "Password", "Sign in"],
    });
    expect(act[0]?.skill.frontMatter.name).to.equal("forms-and-sign-in");
    const check = selectSkills(skills, { kind: "check", instruction: "the page greets ada", labels: [] });
    expect(check.map((entry) => entry.skill.frontMatter.name)).to.deep.equal(["checks-with-evidence"]);
  });
});
