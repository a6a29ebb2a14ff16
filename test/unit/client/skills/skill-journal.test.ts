import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { expect } from "chai";
import { describeAction, siteOf } from "../../../../client/checks/agent/runner-lessons.js";
import { journalEntries } from "../../../../client/checks/run-suite.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";
import { appendJournal, journalPath, readJournal } from "../../../../client/skills/skill-journal.js";
import { packagePath } from "../../../../shared/package-root.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

describe("skills journal", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("obs-journal-");
  });
  afterEach(() => dir.cleanup());

  it("appends a finished test's lessons as entries that match the schema, and reads them back", () => {
    const entries = journalEntries(
      [
        {
          skill: "forms-and-sign-in",
          lesson: "Close the banner first",
          source: "agent",
          kind: "lesson",
          url: "http://localhost:5173/login?next=1",
          step: 2,
          instruction: "sign in",
        },
        { skill: null, lesson: "x", source: "runner", kind: "stall", url: "about:blank", step: 4, instruction: "go" },
      ],
      { id: "a.obs.ts > t", file: "a.obs.ts", name: "t" },
      true,
      new Date("2026-11-22T10:00:00Z"),
    );
    appendJournal(dir.path, entries);
    appendJournal(dir.path, entries.slice(0, 1));
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(packagePath("schemas", "skills", "journal-entry.json"), "utf8")),
    );
    for (const entry of entries) expect(validate(entry), JSON.stringify(validate.errors)).to.equal(true);
    expect(entries[0]).to.deep.include({
      site: "http://localhost:5173",
      passed: true,
      recorded_at: "2026-11-22T10:00:00.000Z",
    });
    expect(entries[1]?.site).to.equal(null);
    const read = readJournal(dir.path);
    expect(read.problems).to.deep.equal([]);
    expect(read.entries).to.deep.equal([...entries, entries[0]]);
    expect(journalPath(dir.path)).to.equal(join(dir.path, ".obs", "skills", "journal.ndjson"));
  });

  it("skips lines that are not entries, naming them", () => {
    mkdirSync(join(dir.path, ".obs", "skills"), { recursive: true });
    copyFileSync(packagePath("test", "fixtures", "skills", "journal.ndjson"), journalPath(dir.path));
    const read = readJournal(dir.path);
    expect(read.entries).to.have.length(8);
    expect(read.problems).to.deep.equal([
      { line: 5, message: "not JSON" },
      { line: 10, message: "(entry) must have required property 'source'" },
    ]);
  });

  it("describes actions without element numbers or typed text", () => {
    const elements = [
      {
        index: 3,
        tag: "input",
        role: null,
        type: "password",
        label: "Password",
        value: null,
        checked: null,
        disabled: false,
        href: null,
      },
      {
        index: 4,
        tag: "button",
        role: "button",
        type: null,
        label: "Sign in",
        value: null,
        checked: null,
        disabled: false,
        href: null,
      },
    ];
    expect(describeAction("type", { index: 3, text: "hunter2" }, elements)).to.equal(
      'type into password field "Password"',
    );
    expect(describeAction("click", { index: 4 }, elements)).to.equal('click button "Sign in"');
    expect(describeAction("click", { index: 9 }, elements)).to.equal("click element [9]");
    expect(describeAction("press", { key: "Enter" }, elements)).to.equal("press Enter");
    expect(siteOf("https://example.com:8443/a")).to.equal("https://example.com:8443");
    expect(siteOf("data:text/html,x")).to.equal(null);
  });

  it("redacts the test's secrets from an entry's lesson, URL and instruction before it is written", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "lovelace" });
    secrets.learnTyped("hunter2");
    const entries = journalEntries(
      [
        {
          skill: "forms-and-sign-in",
          lesson: "the password lovelace works after hunter2 failed",
          source: "agent",
          kind: "lesson",
          url: "http://localhost:5173/login?pw=lovelace",
          step: 2,
          instruction: "sign in as ada with lovelace",
        },
      ],
      { id: "a.obs.ts > signs in", file: "a.obs.ts", name: "signs in" },
      false,
      new Date("2026-11-22T10:00:00Z"),
      secrets,
    );
    appendJournal(dir.path, entries);
    const written = readFileSync(journalPath(dir.path), "utf8");
    expect(written).not.to.include("lovelace");
    expect(written).not.to.include("hunter2");
    expect(entries[0]).to.deep.include({
      lesson: "the password %password% works after %typed_secret% failed",
      instruction: "sign in as ada with %password%",
      test: { file: "a.obs.ts", name: "signs in" },
      passed: false,
    });
  });
});
