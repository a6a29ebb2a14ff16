import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { openSettingsFile, rewriteSettingsFile } from "../../../../client/setup/settings-file.js";
import { SettingsFileError } from "../../../../client/setup/telemetry-settings.js";
import { tempDir } from "../../../helpers/temp-dir.js";

/** An edit that adds `"added": true` before the closing brace, and says nothing when it is there. */
function addKey(current: string | null): { text: string | null; outcome: string | null } {
  const text = current ?? "{}";
  if (text.includes('"added"')) return { text: null, outcome: text };
  return { text: text.replace(/\}\s*$/, `${text.trim() === "{}" ? "" : ", "}"added": true}\n`), outcome: text };
}

describe("the agent's settings file on disk", () => {
  let home: string;
  let cleanup: () => void;
  let folder: string;
  let path: string;

  beforeEach(() => {
    ({ path: home, cleanup } = tempDir("obs-settings-file-"));
    folder = join(home, ".agentcli");
    mkdirSync(folder, { mode: 0o700 });
    path = join(folder, "settings.json");
  });
  afterEach(() => cleanup());

  it("edits the file a link names and keeps the link, as dotfile managers expect", async () => {
    const dotfiles = join(home, "dotfiles");
    mkdirSync(dotfiles);
    const target = join(dotfiles, "settings.json");
    writeFileSync(target, '{"a": 1}\n');
    symlinkSync("../dotfiles/settings.json", path);
    const file = openSettingsFile(path);
    expect(file.text).to.equal('{"a": 1}\n');
    await rewriteSettingsFile(file, addKey);
    expect(lstatSync(path).isSymbolicLink()).to.equal(true);
    expect(JSON.parse(readFileSync(target, "utf8"))).to.deep.equal({ a: 1, added: true });
    expect(readFileSync(`${target}.bak`, "utf8")).to.equal('{"a": 1}\n');
  });

  it("keeps the previous text as the backup even where an old backup is read-only", async () => {
    writeFileSync(path, '{"a": 1}\n', { mode: 0o600 });
    writeFileSync(`${path}.bak`, "old backup", { mode: 0o444 });
    chmodSync(`${path}.bak`, 0o444);
    const { backupPath } = await rewriteSettingsFile(openSettingsFile(path), addKey);
    expect(backupPath).to.equal(`${path}.bak`);
    expect(readFileSync(`${path}.bak`, "utf8")).to.equal('{"a": 1}\n');
    expect(JSON.parse(readFileSync(path, "utf8"))).to.deep.equal({ a: 1, added: true });
  });

  it("keeps the file's permissions whatever the umask, the backup's the same", async () => {
    writeFileSync(path, '{"a": 1}\n');
    chmodSync(path, 0o664);
    const umask = process.umask(0o077);
    try {
      await rewriteSettingsFile(openSettingsFile(path), addKey);
    } finally {
      process.umask(umask);
    }
    expect(statSync(path).mode & 0o777).to.equal(0o664);
    expect(statSync(`${path}.bak`).mode & 0o777).to.equal(0o664);
  });

  it("creates a missing file owner-only, with no backup", async () => {
    const umask = process.umask(0o002);
    let backupPath: string | null;
    try {
      ({ backupPath } = await rewriteSettingsFile(openSettingsFile(path), addKey));
    } finally {
      process.umask(umask);
    }
    expect(backupPath).to.equal(null);
    expect(JSON.parse(readFileSync(path, "utf8"))).to.deep.equal({ added: true });
    expect(statSync(path).mode & 0o777).to.equal(0o600);
  });

  it("serializes setups run at once: one edits, the others find the edit made and the backup is the original", async () => {
    writeFileSync(path, '// mine\n{"a": 1}\n');
    const results = await Promise.all([1, 2, 3].map(() => rewriteSettingsFile(openSettingsFile(path), addKey)));
    expect(results.filter((result) => result.backupPath !== null)).to.have.length(1);
    expect(readFileSync(`${path}.bak`, "utf8")).to.equal('// mine\n{"a": 1}\n');
    expect(readFileSync(path, "utf8")).to.equal('// mine\n{"a": 1, "added": true}\n');
    expect(readdirSync(folder).sort()).to.deep.equal(["settings.json", "settings.json.bak"]);
  });

  it("edits again what another program wrote while the edit was being made, rather than losing it", async () => {
    writeFileSync(path, '{"a": 1}\n');
    let calls = 0;
    await rewriteSettingsFile(openSettingsFile(path), (current) => {
      calls += 1;
      // Another editor saves the file while obs prepares its edit of the first text it read.
      if (calls === 1) writeFileSync(path, '{"a": 1, "b": 2}\n');
      return addKey(current);
    });
    expect(calls).to.equal(2);
    expect(JSON.parse(readFileSync(path, "utf8"))).to.deep.equal({ a: 1, b: 2, added: true });
    expect(readFileSync(`${path}.bak`, "utf8")).to.equal('{"a": 1, "b": 2}\n');
  });

  it("refuses a file that keeps changing while it is edited, leaving the file and its backup as they were", async () => {
    writeFileSync(path, '{"a": 0}\n');
    writeFileSync(`${path}.bak`, "the backup before\n");
    let calls = 0;
    let refused: unknown;
    try {
      await rewriteSettingsFile(openSettingsFile(path), (current) => {
        calls += 1;
        writeFileSync(path, `{"a": ${calls}}\n`);
        return addKey(current);
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(SettingsFileError);
    expect((refused as Error).message).to.match(/changed 3 times while obs was editing it/);
    expect(readFileSync(path, "utf8")).to.equal('{"a": 3}\n');
    expect(readFileSync(`${path}.bak`, "utf8")).to.equal("the backup before\n");
    expect(readdirSync(folder).sort()).to.deep.equal(["settings.json", "settings.json.bak"]);
  });

  it("keeps a byte-order mark: the edit reads the text after it, and it is written back", async () => {
    writeFileSync(path, '\uFEFF{"a": 1}\n');
    const file = openSettingsFile(path);
    expect(file.text).to.equal('{"a": 1}\n');
    await rewriteSettingsFile(file, addKey);
    const written = readFileSync(path, "utf8");
    expect(written.startsWith("\uFEFF")).to.equal(true);
    expect(JSON.parse(written.slice(1))).to.deep.equal({ a: 1, added: true });
  });

  it("refuses a folder at the path, naming it", () => {
    mkdirSync(path);
    expect(() => openSettingsFile(path))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.includes(`${path} is a folder`);
  });

  it("refuses a read-only file, which the user has protected", () => {
    writeFileSync(path, '{"a": 1}\n');
    chmodSync(path, 0o444);
    expect(() => openSettingsFile(path))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.matches(/read-only/);
  });

  it("refuses a file or a link another user owns", function () {
    if (process.getuid?.() !== 0) this.skip(); // Only root can give a file to another user.
    writeFileSync(path, '{"a": 1}\n');
    chownSync(path, 65534, 65534);
    expect(() => openSettingsFile(path))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.matches(/belongs to another user \(uid 65534/);
  });

  it("refuses a path through a file, naming it", () => {
    writeFileSync(join(home, "plain"), "");
    const through = join(home, "plain", "settings.json");
    expect(() => openSettingsFile(through))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.includes(`${through} cannot be made: a part of its path is a file`);
  });

  it("refuses, before anything is started, a folder the user cannot write", function () {
    // Root may write any folder: the check is run as another user, as a user's setup runs.
    if (process.getuid?.() !== 0) this.skip();
    chmodSync(home, 0o755);
    chownSync(folder, 65534, 65534);
    chmodSync(folder, 0o555);
    // As that user for this one synchronous call (the effective uid, so root can take it back).
    process.setegid?.(65534);
    process.seteuid?.(65534);
    try {
      expect(() => openSettingsFile(path))
        .to.throw(SettingsFileError)
        .with.property("message")
        .that.equals(`${path} cannot be written: the folder ${folder} is not writable (EACCES); obs left it unchanged`);
    } finally {
      process.seteuid?.(0);
      process.setegid?.(0);
    }
  });
});
