import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { readRegistryFile, removableSocket } from "../../../../client/discovery/registry-files.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const ID = "ab".repeat(16);

describe("registry files: what obs reads and removes", () => {
  let dir: ReturnType<typeof tempDir>;
  let run: string;
  const servers: Server[] = [];
  beforeEach(() => {
    dir = tempDir();
    run = join(dir.path, "monitor", "run");
    mkdirSync(run, { recursive: true, mode: 0o700 });
  });
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    dir.cleanup();
  });

  const socketAt = async (path: string) => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
  };

  it("reads this user's own plain entries, and neither a link nor something else", () => {
    const entry = { instanceId: ID, socketPath: join(run, `${ID}.sock`), pid: 1 };
    writeFileSync(join(run, "own.json"), JSON.stringify(entry));
    expect(readRegistryFile(join(run, "own.json"))).to.deep.equal({ kind: "entry", entry });
    symlinkSync(join(run, "own.json"), join(run, "link.json"));
    expect(readRegistryFile(join(run, "link.json"))).to.deep.equal({ kind: "foreign" });
    mkdirSync(join(run, "folder.json"));
    expect(readRegistryFile(join(run, "folder.json"))).to.deep.equal({ kind: "foreign" });
    expect(readRegistryFile(join(run, "missing.json"))).to.deep.equal({ kind: "foreign" });
    writeFileSync(join(run, "torn.json"), '{"instanceId":');
    expect(readRegistryFile(join(run, "torn.json"))).to.deep.equal({ kind: "unreadable" });
    writeFileSync(join(run, "null.json"), "null");
    expect(readRegistryFile(join(run, "null.json"))).to.deep.equal({ kind: "unreadable" });
  });

  it("removes only an entry's own socket, in the registry folder or the private obs-<uid> folder in the temp folder", async () => {
    const own = join(run, `${ID}.sock`);
    await socketAt(own);
    expect(removableSocket({ instanceId: ID, socketPath: own }, run)).to.equal(true);
    // Named after another instance, or reached by a way that is not the plain path.
    expect(removableSocket({ instanceId: "cd".repeat(16), socketPath: own }, run)).to.equal(false);
    expect(removableSocket({ instanceId: ID, socketPath: `${run}/../run/${ID}.sock` }, run)).to.equal(false);
    expect(removableSocket({ instanceId: ID, socketPath: `monitor/run/${ID}.sock` }, run)).to.equal(false);
    // A file that is no socket, though named like one, in the registry folder.
    const file = join(run, `${"ef".repeat(16)}.sock`);
    writeFileSync(file, "");
    expect(removableSocket({ instanceId: "ef".repeat(16), socketPath: file }, run)).to.equal(false);
    // A socket elsewhere: in a private folder of ours that is not a socket folder of obs.
    const elsewhere = join(dir.path, "vault");
    mkdirSync(elsewhere, { mode: 0o700 });
    await socketAt(join(elsewhere, `${ID}.sock`));
    expect(removableSocket({ instanceId: ID, socketPath: join(elsewhere, `${ID}.sock`) }, run)).to.equal(false);
    // A private folder named as the temp socket folder is, elsewhere than in the temp folder.
    const named = join(elsewhere, `obs-${process.getuid?.() ?? "user"}`);
    mkdirSync(named, { mode: 0o700 });
    chmodSync(named, 0o700);
    await socketAt(join(named, `${ID}.sock`));
    expect(removableSocket({ instanceId: ID, socketPath: join(named, `${ID}.sock`) }, run)).to.equal(false);
    // The temp socket folder (in TMPDIR): only while it is private.
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = dir.path;
    try {
      const temp = join(dir.path, `obs-${process.getuid?.() ?? "user"}`);
      mkdirSync(temp, { mode: 0o700 });
      chmodSync(temp, 0o700);
      await socketAt(join(temp, `${ID}.sock`));
      expect(removableSocket({ instanceId: ID, socketPath: join(temp, `${ID}.sock`) }, run)).to.equal(true);
      chmodSync(temp, 0o777);
      expect(removableSocket({ instanceId: ID, socketPath: join(temp, `${ID}.sock`) }, run)).to.equal(false);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });
});
