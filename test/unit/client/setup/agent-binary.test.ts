import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { locateAgent } from "../../../../client/setup/agent-binary.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("finding the agent on PATH", () => {
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

  it("takes the first executable agentcli on PATH", () => {
    const path = ["a", "b", "c"].map((folder) => join(dir.path, folder)).join(":");
    expect(locateAgent({ PATH: path })).to.equal(join(dir.path, "c", "agentcli"));
  });

  it("reports a missing agent as a usage error that names it", () => {
    expect(() => locateAgent({ PATH: join(dir.path, "a") }))
      .to.throw(/agentcli was not found on PATH/)
      .with.property("code", "invalid_argument");
  });
});
