import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { obsMcpLaunch } from "../../../../client/setup/obs-mcp-command.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("the command that starts obs mcp", () => {
  let dir: { path: string; cleanup: () => void };
  let binPath: string;
  const node = "/opt/node-20/bin/node";

  before(() => {
    dir = tempDir();
    for (const folder of ["package/bin", "global", "other", "empty"])
      mkdirSync(join(dir.path, folder), { recursive: true });
    binPath = join(dir.path, "package", "bin", "obs.js");
    writeFileSync(binPath, "#!/usr/bin/env node\n");
    chmodSync(binPath, 0o755);
    // A global install links its bin folder entry to the package's script.
    symlinkSync(binPath, join(dir.path, "global", "obs"));
    writeFileSync(join(dir.path, "other", "obs"), "#!/bin/sh\n");
    chmodSync(join(dir.path, "other", "obs"), 0o755);
  });
  after(() => dir.cleanup());

  it("is plain `obs mcp` when obs on PATH is this obs", () => {
    expect(obsMcpLaunch(binPath, node, join(dir.path, "global"))).to.deep.equal({ command: "obs", args: ["mcp"] });
  });

  it("is this node running this bin/obs.js when no obs is on PATH", () => {
    expect(obsMcpLaunch(binPath, node, join(dir.path, "empty"))).to.deep.equal({
      command: node,
      args: [binPath, "mcp"],
    });
  });

  it("is this node running this bin/obs.js when the obs on PATH is another copy", () => {
    const path = [join(dir.path, "other"), join(dir.path, "global")].join(":");
    expect(obsMcpLaunch(binPath, node, path)).to.deep.equal({ command: node, args: [binPath, "mcp"] });
  });
});
