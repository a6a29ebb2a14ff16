import { execFile } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { tempDir } from "../helpers/temp-dir.js";

/** Type-checks files in a project that has obs installed, as a user's editor or CI would. */
function typeCheck(cwd: string, files: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      packagePath("node_modules", ".bin", "tsc"),
      ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", ...files],
      { cwd },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe("obs/test typings for spec and config files", function () {
  this.timeout(30_000);
  let project: ReturnType<typeof tempDir>;
  before(() => {
    project = tempDir("obs-types-");
    mkdirSync(join(project.path, "node_modules"));
    symlinkSync(packagePath(), join(project.path, "node_modules", "obs"));
    cpSync(packagePath("test", "fixtures", "checks", "specs"), join(project.path, "tests"), { recursive: true });
  });
  after(() => project.cleanup());

  it("type-checks the fixture specs and a config written with defineConfig", async () => {
    writeFileSync(
      join(project.path, "obs.config.ts"),
      'import { defineConfig } from "obs/test";\nexport default defineConfig({ baseUrl: "http://localhost:3000", maxSteps: 20, reporter: "junit" });\n',
    );
    const result = await typeCheck(project.path, [
      "obs.config.ts",
      "tests/login.obs.ts",
      "tests/todo.obs.ts",
      "tests/failing-check.obs.ts",
      "tests/stall.obs.ts",
    ]);
    expect(result.output).to.equal("");
    expect(result.code).to.equal(0);
  });

  it("rejects a config field of the wrong type", async () => {
    writeFileSync(
      join(project.path, "bad.config.ts"),
      'import { defineConfig } from "obs/test";\nexport default defineConfig({ maxSteps: "many", reporter: "pdf" });\n',
    );
    const result = await typeCheck(project.path, ["bad.config.ts"]);
    expect(result.code).to.not.equal(0);
    expect(result.output).to.include(
      "bad.config.ts(2,31): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(result.output).to.include(`bad.config.ts(2,49): error TS2322: Type '"pdf"' is not assignable to type`);
  });
});
