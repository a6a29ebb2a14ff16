import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { configProblems, findConfig, loadConfig } from "../../../../client/checks/config/config-file.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("obs.config.ts", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("is found in the working folder or above it", () => {
    writeFileSync(join(dir.path, "obs.config.ts"), "export default {};\n");
    mkdirSync(join(dir.path, "a", "b"), { recursive: true });
    expect(findConfig(join(dir.path, "a", "b"))).to.equal(join(dir.path, "obs.config.ts"));
  });

  it("is loaded as TypeScript with defineConfig from obs/test", async () => {
    writeFileSync(
      join(dir.path, "obs.config.ts"),
      `import { defineConfig, type ObsConfig } from "obs/test";
const steps: number = 12;
export default defineConfig({ baseUrl: "http://localhost:3000", maxSteps: steps, reporter: "junit" } satisfies ObsConfig);
`,
    );
    const loaded = await loadConfig(undefined, dir.path);
    expect(loaded.path).to.equal(join(dir.path, "obs.config.ts"));
    expect(loaded.config).to.deep.equal({ baseUrl: "http://localhost:3000", maxSteps: 12, reporter: "junit" });
  });

  it("names every invalid field", () => {
    expect(configProblems({ maxSteps: 0, reporter: "pdf", colour: true, viewport: "big" })).to.have.members([
      'unknown field "colour"',
      "maxSteps must be >= 1",
      "reporter must be equal to one of the allowed values: one of basic, json, junit, html, all",
      'viewport must match pattern "^[1-9][0-9]{1,4}x[1-9][0-9]{1,4}$"',
    ]);
    expect(configProblems({})).to.deep.equal([]);
  });

  it("refuses a timeout longer than a timer can wait, which would fire at once", () => {
    expect(configProblems({ timeout: 2_147_483_648 })).to.deep.equal(["timeout must be <= 2147483647"]);
    expect(configProblems({ timeout: 2_147_483_647 })).to.deep.equal([]);
  });

  it("refuses a test's timeout that is not a whole number of milliseconds a timer can wait", async () => {
    const { test } = await import("../../../../client/checks/spec-api.js");
    const { beginCollecting, endCollecting } = await import("../../../../client/checks/spec/test-registry.js");
    const spec = beginCollecting();
    try {
      for (const timeout of [2_147_483_648, 0, -5, 1.5, Number.NaN, "9000"]) {
        expect(() => test("slow", { timeout } as { timeout: number }, async () => {}), String(timeout)).to.throw(
          `test("slow"): timeout must be a whole number of milliseconds from 1 to 2147483647, not ${String(timeout)}`,
        );
      }
      test("slow", { timeout: 2_147_483_647 }, async () => {});
      expect(spec.tests.map((declared) => declared.options.timeout)).to.deep.equal([2_147_483_647]);
    } finally {
      endCollecting();
    }
  });

  it("refuses an invalid config as invalid_config, naming the file and field", async () => {
    writeFileSync(join(dir.path, "obs.config.ts"), "export default { workers: 'two' };\n");
    const error = await loadConfig(undefined, dir.path).then(
      () => null,
      (failure: Error & { code?: string }) => failure,
    );
    expect(error?.code).to.equal("invalid_config");
    expect(error?.message).to.equal(`${join(dir.path, "obs.config.ts")}: workers must be integer`);
  });

  it("refuses a -c path that does not exist", async () => {
    const error = await loadConfig("nope.config.ts", dir.path).catch((failure: Error) => failure);
    expect((error as Error).message).to.match(/nope\.config\.ts does not exist/);
  });
});
