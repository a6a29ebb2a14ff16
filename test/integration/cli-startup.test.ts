import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { tempDir } from "../helpers/temp-dir.js";

/** Runs obs with a module-resolution hook that lists every ES module it loads. */
function modulesLoadedBy(args: string[], dir: string): Promise<string[]> {
  const hooks = join(dir, "hooks.mjs");
  const register = join(dir, "register.mjs");
  const log = join(dir, "modules.txt");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
  return result;
}\n`,
  );
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  writeFileSync(log, "");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(register).href, packagePath("bin", "obs.js"), ...args],
      { env: { ...process.env, OBS_STATE_DIR: join(dir, "state"), OBS_MONITOR_URL: "http://127.0.0.1:1" } },
      () => resolve(readFileSync(log, "utf8").split("\n").filter(Boolean)),
    );
  });
}

/** None of `modules` (file URLs) lies under any of the `heavy` path fragments. */
function expectNoneLoaded(modules: string[], heavy: string[]): void {
  for (const fragment of heavy) {
    expect(
      modules.filter((url) => url.includes(fragment)),
      fragment,
    ).to.deep.equal([]);
  }
}

describe("obs start-up: commands load only what they need", function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("obs monitor status loads neither yargs, express, the store nor webdriverio", async () => {
    const modules = await modulesLoadedBy(["monitor", "status", "--json"], dir.path);
    expect(modules).to.include(pathToFileURL(packagePath("dist", "client", "cli", "monitor-status.js")).href);
    // yargs is loaded through require, which these hooks do not see: main.js is what loads it.
    expectNoneLoaded(modules, [
      "/dist/client/cli/main.js",
      "/express/",
      "/better-sqlite3/",
      "/webdriverio/",
      "/dist/daemon/",
    ]);
  });

  it("query commands load neither express, the store nor webdriverio", async () => {
    const modules = await modulesLoadedBy(["traces", "--json"], dir.path);
    expect(modules).to.include(pathToFileURL(packagePath("dist", "client", "api", "api-client.js")).href);
    expectNoneLoaded(modules, ["/express/", "/better-sqlite3/", "/webdriverio/", "/dist/daemon/"]);
  });

  it("obs agentcli loads neither yargs, express, the store nor webdriverio before the agent runs", async () => {
    const modules = await modulesLoadedBy(["agentcli", "--version"], dir.path);
    expect(modules).to.include(pathToFileURL(packagePath("dist", "client", "setup", "launch-agentcli.js")).href);
    expectNoneLoaded(modules, [
      "/dist/client/cli/main.js",
      "/express/",
      "/better-sqlite3/",
      "/webdriverio/",
      "/dist/daemon/",
    ]);
  });

  it("obs list loads the specs but neither webdriverio nor the collector", async () => {
    const modules = await modulesLoadedBy(["list", packagePath("test", "fixtures", "checks", "specs")], dir.path);
    expect(modules).to.include(pathToFileURL(packagePath("dist", "client", "checks", "list-checks.js")).href);
    expectNoneLoaded(modules, ["/webdriverio/", "/express/", "/better-sqlite3/", "/dist/daemon/"]);
  });

  it("obs skills list loads the skills catalog but neither the spec loader, webdriverio nor the collector", async () => {
    const modules = await modulesLoadedBy(["skills", "list"], dir.path);
    expect(modules).to.include(pathToFileURL(packagePath("dist", "client", "skills", "skill-catalog.js")).href);
    expectNoneLoaded(modules, ["/webdriverio/", "/jiti/", "/ajv/", "/express/", "/better-sqlite3/", "/dist/daemon/"]);
  });
});
