import { readFileSync } from "node:fs";
import { expect } from "chai";
import { journalEntries } from "../../../../client/checks/run/redacted-artifacts.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";
import { BUNDLED_SKILLS_DIR } from "../../../../client/skills/skill-catalog.js";
import {
  baseOf,
  distillLessons,
  improvedSkillText,
  LEARNED_HEADING,
  withoutLearned,
} from "../../../../client/skills/skill-distillation.js";
import { parseSkill } from "../../../../client/skills/skill-document.js";
import type { JournalEntry } from "../../../../client/skills/skill-journal.js";
import { packagePath } from "../../../../shared/package-root.js";

const FIXTURE = packagePath("test", "fixtures", "skills", "journal.ndjson");

/** The fixture's valid entries (the unit under test reads entries, not files). */
function fixtureEntries(): JournalEntry[] {
  return readFileSync(FIXTURE, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as JournalEntry)
    .filter((entry) => entry.test !== undefined);
}

const bundledForms = () => {
  const path = `${BUNDLED_SKILLS_DIR}/forms-and-sign-in.md`;
  return parseSkill(readFileSync(path, "utf8"), path, "bundled");
};

describe("skill distillation (obs skills improve)", () => {
  it("groups lessons by normalized text, keeps those from passing runs or seen in several runs, and ranks them", () => {
    expect(distillLessons(fixtureEntries(), "forms-and-sign-in")).to.deep.equal([
      {
        // Two runs (the same run recorded it twice), the newer of the two-run lessons: first.
        text: "Password field appears after Continue",
        runs: 2,
        passingRuns: 0,
        lastSeen: "2026-11-11T09:00:00.000Z",
        sites: ["http://localhost:3000"],
      },
      {
        // Two spellings, one lesson; the spelling chosen does not depend on journal order.
        text: "Close the cookie banner before signing in",
        runs: 2,
        passingRuns: 1,
        lastSeen: "2026-11-05T09:00:00.000Z",
        sites: ["http://localhost:3000", "http://localhost:4000"],
      },
      {
        text: '"sign in" was carried out by: click button "Log in" (after 1 failed attempt)',
        runs: 1,
        passingRuns: 1,
        lastSeen: "2026-11-12T09:00:00.000Z",
        sites: ["http://localhost:3000"],
      },
      // "The Continue button submits the first step": one failing run only, left out.
    ]);
  });

  it("does not depend on the order of the journal", () => {
    const entries = fixtureEntries();
    expect(distillLessons([...entries].reverse(), "forms-and-sign-in")).to.deep.equal(
      distillLessons(entries, "forms-and-sign-in"),
    );
  });

  it("writes the improved skill: the bundled text, version bumped, based_on, and the learned lessons with provenance", () => {
    const skill = bundledForms();
    const text = improvedSkillText(baseOf(skill, skill), distillLessons(fixtureEntries(), "forms-and-sign-in"));
    const original = skill.text.split("\n");
    const end = original.indexOf("---", 1);
    const expected = [
      ...original.slice(0, end).map((line) => (line === "version: 1.0.0" ? "version: 1.1.0" : line)),
      "based_on: forms-and-sign-in@1.0.0",
      ...original.slice(end, -1),
      "",
      LEARNED_HEADING,
      "",
      "- Password field appears after Continue (seen in 2 runs, 0 passing; last 2026-11-11; http://localhost:3000)",
      "- Close the cookie banner before signing in (seen in 2 runs, 1 passing; last 2026-11-05; http://localhost:3000, http://localhost:4000)",
      '- "sign in" was carried out by: click button "Log in" (after 1 failed attempt) (seen in 1 run, 1 passing; last 2026-11-12; http://localhost:3000)',
      "",
    ];
    const lines = (text as string).split("\n");
    lines.forEach((line, index) => {
      expect(line, `line ${index + 1}`).to.equal(expected[index]);
    });
    expect(lines).to.have.length(expected.length);
  });

  it("improves an improved skill to the same text: the base is the bundled skill, not the override", () => {
    const bundled = bundledForms();
    const lessons = distillLessons(fixtureEntries(), "forms-and-sign-in");
    const first = improvedSkillText(baseOf(bundled, bundled), lessons) as string;
    const override = parseSkill(first, "override.md", "project");
    expect(improvedSkillText(baseOf(override, bundled), lessons)).to.equal(first);
    // A project-only skill is its own base, through based_on.
    expect(improvedSkillText(baseOf(override, undefined), lessons)).to.equal(first);
  });

  it("proposes nothing when no lesson qualifies", () => {
    const skill = bundledForms();
    expect(improvedSkillText(baseOf(skill, skill), distillLessons(fixtureEntries(), "consent-banners"))).to.equal(null);
  });

  it("removes only the learned section an earlier distillation wrote", () => {
    expect(withoutLearned(`# A\n\ntext\n\n${LEARNED_HEADING}\n\n- old\n\n## Other\n\nkept\n`)).to.equal(
      "# A\n\ntext\n\n## Other\n\nkept\n",
    );
    expect(withoutLearned("# A\n\ntext\n")).to.equal("# A\n\ntext\n");
  });

  it("distills what the runner journaled with a secret into a skill with its placeholder, never its value", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "lovelace" });
    const entries = journalEntries(
      [
        {
          skill: "forms-and-sign-in",
          lesson: '"sign in as ada with lovelace" was carried out by: click button "Sign in" (after 1 failed attempt)',
          source: "runner",
          kind: "resolved_after_retries",
          url: "http://localhost:3000/login?pw=lovelace",
          step: 4,
          instruction: "sign in as ada with lovelace",
        },
      ],
      { id: "a.obs.ts > signs in", file: "a.obs.ts", name: "signs in" },
      true,
      new Date("2026-11-22T10:00:00Z"),
      secrets,
    );
    const skill = bundledForms();
    const text = improvedSkillText(baseOf(skill, skill), distillLessons(entries, "forms-and-sign-in")) as string;
    expect(text).to.include('- "sign in as ada with %password%" was carried out by: click button "Sign in"');
    expect(text).not.to.include("lovelace");
  });
});
