import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { findOnPath } from "../../../../client/executables/find-executable.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("finding an executable on PATH", () => {
  let dir: { path: string; cleanup: () => void };
  before(() => {
    dir = tempDir();
    for (const folder of ["a", "b", "c"]) mkdirSync(join(dir.path, folder));
    writeFileSync(join(dir.path, "a", "agentcli"), "not executable");
    mkdirSync(join(dir.path, "b", "agentcli"));
    writeFileSync(join(dir.path, "c", "agentcli"), "#!/bin/sh\n");
    chmodSync(join(dir.path, "c", "agentcli"), 0o755);
  });
  after(() => dir.cleanup());

  it("takes the first executable file, as a shell would", () => {
    const path = ["a", "b", "c"].map((folder) => join(dir.path, folder)).join(":");
    expect(findOnPath("agentcli", path)).to.equal(join(dir.path, "c", "agentcli"));
  });

  it("ignores relative and empty PATH entries", () => {
    expect(findOnPath("agentcli", `:relative:${join(dir.path, "a")}`)).to.equal(null);
    expect(findOnPath("agentcli", undefined)).to.equal(null);
  });
});
