import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { initSpec, STARTER_SPEC } from "../../../../client/checks/init-spec.js";
import { LifecycleError } from "../../../../client/lifecycle/lifecycle-error.js";
import { tempDir } from "../../../helpers/temp-dir.js";

/** What initSpec threw, for its code and message. */
function refusal(run: () => unknown): LifecycleError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(LifecycleError);
    return error as LifecycleError;
  }
  throw new Error("initSpec wrote a spec where it should have refused");
}

describe("obs init's starter spec", () => {
  it("writes the starter at the path given, making its folders", () => {
    const dir = tempDir("obs-init-");
    try {
      expect(initSpec(dir.path, "e2e/checks/home.obs.ts")).to.equal(join("e2e", "checks", "home.obs.ts"));
      expect(readFileSync(join(dir.path, "e2e/checks/home.obs.ts"), "utf8")).to.equal(STARTER_SPEC);
    } finally {
      dir.cleanup();
    }
  });

  it("refuses, as an argument error naming the path, a path under a file or naming a folder", () => {
    const dir = tempDir("obs-init-");
    try {
      writeFileSync(join(dir.path, "notes"), "mine");
      const underFile = refusal(() => initSpec(dir.path, "notes/home.obs.ts"));
      expect(underFile.code).to.equal("invalid_argument");
      expect(underFile.message).to.equal("cannot write notes/home.obs.ts: notes is a file, not a folder");
      expect(readFileSync(join(dir.path, "notes"), "utf8")).to.equal("mine");

      const deeper = refusal(() => initSpec(dir.path, "notes/more/home.obs.ts"));
      expect(deeper.message).to.equal("cannot write notes/more/home.obs.ts: notes is a file, not a folder");
    } finally {
      dir.cleanup();
    }
  });
});
