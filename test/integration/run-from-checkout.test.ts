import { execFile } from "node:child_process";
import { cpSync, realpathSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { tempDir } from "../helpers/temp-dir.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** What running must not touch: the compiled CLI and the native addon (time and inode). */
function builtFiles(root: string): Record<string, string> {
  const files = [join("dist", "client", "cli", "entry.js"), join("build", "Release", "otlp_json.node")];
  return Object.fromEntries(
    files.map((file) => {
      const stats = statSync(join(root, file));
      return [file, `${stats.ino}:${stats.mtimeMs}`];
    }),
  );
}

describe("running the CLI from a checkout (npx obs, npm link, node bin/obs.js) does not rebuild it", function () {
  this.timeout(180_000);
  let dir: ReturnType<typeof tempDir>;
  let checkout: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    dir = tempDir("obs-checkout-");
    checkout = join(dir.path, "obs");
    // A copy of this checkout, built as it is (times kept, so what is up to date stays so),
    // sharing its installed dependencies.
    const root = packagePath();
    cpSync(root, checkout, {
      recursive: true,
      preserveTimestamps: true,
      filter: (source) => ![join(root, "node_modules"), join(root, ".git")].includes(source),
    });
    symlinkSync(realpathSync(join(root, "node_modules")), join(checkout, "node_modules"));
    env = {
      npm_config_cache: join(dir.path, "npm-cache"),
      npm_config_prefix: join(dir.path, "global"),
      npm_config_offline: "true",
      npm_config_update_notifier: "false",
      OBS_STATE_DIR: join(dir.path, "state"),
      OBS_MONITOR_URL: "",
    };
  });
  after(() => dir.cleanup());

  it("npx obs from the folder runs the CLI, twice, leaving dist/ and build/ as they were", async () => {
    const before = builtFiles(checkout);
    const version = await run("npx", ["obs", "--version"], checkout, env);
    expect(version.code, version.stderr).to.equal(0);
    expect(version.stdout.trim()).to.equal("0.1.0");
    for (let i = 0; i < 2; i++) {
      const status = await run("npx", ["obs", "status", "--json"], checkout, env);
      expect(status.code, status.stderr).to.equal(3);
      expect(JSON.parse(status.stdout).error.code).to.equal("collector_unavailable");
    }
    expect(builtFiles(checkout)).to.deep.equal(before);
  });

  it("npm link puts a working obs on PATH, leaving dist/ and build/ as they were", async () => {
    const before = builtFiles(checkout);
    const link = await run("npm", ["link"], checkout, env);
    expect(link.code, link.stderr).to.equal(0);
    const linked = await run(join(dir.path, "global", "bin", "obs"), ["--version"], dir.path, env);
    expect(linked.code, linked.stderr).to.equal(0);
    expect(linked.stdout.trim()).to.equal("0.1.0");
    const direct = await run(process.execPath, [join(checkout, "bin", "obs.js"), "--version"], dir.path, env);
    expect(direct.stdout.trim()).to.equal("0.1.0");
    expect(builtFiles(checkout)).to.deep.equal(before);
  });

  it("the install and prepare scripts rebuild only what a newer source makes stale", async () => {
    const native = await import(join(checkout, "scripts", "build-native.js"));
    const typescript = await import(join(checkout, "scripts", "build-if-stale.js"));
    expect(native.addonUpToDate()).to.equal(true);
    expect(typescript.staleSource()).to.equal(null);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(checkout, "native", "otlp-json", "addon.cc"), later, later);
    utimesSync(join(checkout, "shared", "time.ts"), later, later);
    expect(native.addonUpToDate()).to.equal(false);
    expect(typescript.staleSource()).to.equal(join("shared", "time.ts"));
  });
});
