import { chmodSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { RunSettings } from "../../../../client/checks/config/run-settings.js";
import { reportersFor } from "../../../../client/checks/report/reporters.js";
import {
  appendJournal,
  checkJournal,
  JOURNAL_SCHEMA_VERSION,
  type JournalEntry,
  journalPath,
} from "../../../../client/skills/skill-journal.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;
const ref = { id: "a.obs.ts > one", file: "a.obs.ts", name: "one" };
const entry: JournalEntry = {
  schema_version: JOURNAL_SCHEMA_VERSION,
  recorded_at: "2026-11-22T10:00:00.000Z",
  skill: null,
  lesson: "the cart total is at the bottom",
  source: "agent",
  kind: "lesson",
  site: null,
  test: { file: "a.obs.ts", name: "one" },
  step: 1,
  instruction: "check the total",
  passed: true,
};

describe("files a run appends to: owner-only, never through a link", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("obs-appends-");
  });
  afterEach(() => dir.cleanup());

  const progressReporter = (path: string) =>
    reportersFor({
      reporters: [],
      verbose: false,
      progressFile: path,
      reportDir: join(dir.path, ".obs"),
      cwd: dir.path,
    } as unknown as RunSettings)[0];

  it("makes an existing progress file that others could read owner-only", () => {
    const path = join(dir.path, "progress.ndjson");
    writeFileSync(path, "");
    chmodSync(path, 0o644);
    progressReporter(path)?.onTestStart?.(ref, 1);
    expect(modeOf(path)).to.equal(0o600);
    expect(readFileSync(path, "utf8")).to.include('"test_start"');
  });

  it("refuses a progress file that is a link, and writes nothing through it", () => {
    const victim = join(dir.path, "victim.txt");
    writeFileSync(victim, "mine\n");
    const path = join(dir.path, "progress.ndjson");
    symlinkSync(victim, path);
    expect(() => progressReporter(path)?.onTestStart?.(ref, 1)).to.throw(/is a symbolic link/);
    expect(readFileSync(victim, "utf8")).to.equal("mine\n");
  });

  it("makes an existing skills journal that others could read owner-only, and refuses one that is a link", () => {
    appendJournal(dir.path, [entry]);
    const path = journalPath(dir.path);
    chmodSync(path, 0o644);
    appendJournal(dir.path, [entry]);
    expect(modeOf(path)).to.equal(0o600);
    expect(readFileSync(path, "utf8").trim().split("\n")).to.have.length(2);

    const victim = join(dir.path, "victim.txt");
    writeFileSync(victim, "mine\n");
    const other = tempDir("obs-appends-link-");
    try {
      appendJournal(other.path, [entry]);
      const linked = journalPath(other.path);
      rmSync(linked);
      symlinkSync(victim, linked);
      expect(() => appendJournal(other.path, [entry])).to.throw(/is a symbolic link/);
      // Checked before a run, so a run does not fail after its first test for it.
      expect(() => checkJournal(other.path)).to.throw(/is a symbolic link/);
      rmSync(linked);
      symlinkSync(join(other.path, "nowhere"), linked);
      expect(() => checkJournal(other.path), "a link to nothing").to.throw(/is a symbolic link/);
      expect(readFileSync(victim, "utf8")).to.equal("mine\n");
    } finally {
      other.cleanup();
    }
  });
});
