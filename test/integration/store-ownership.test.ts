import { linkSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { packagePath } from "../../shared/package-root.js";
import { startCollectorProcess, startFailure } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("one collector per store file", function () {
  this.timeout(90_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let state: string;
  beforeEach(() => {
    dir = tempDir();
    // realpath: the collector reports its folder as the process sees it.
    state = join(realpathSync(dir.path), "state");
    env = { OBS_STATE_DIR: state, OBS_MONITOR_PORT: "", OBS_MONITOR_URL: "", OBS_PROJECT_STORE: "" };
  });
  afterEach(async () => {
    for (const entry of await runningCollectors(env))
      await runObs(["monitor", "stop", "--port", String(entry.port)], { env });
    dir.cleanup();
  });

  async function startDetached(cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
    return runObs(["monitor", "start", "--detach", "--json", ...args], { env: { ...env, ...extraEnv }, cwd });
  }

  it("a second monitor start on another port is refused with exit 2, naming the collector that holds the store", async () => {
    const [first, second] = [await freePort(), await freePort()];
    const project = join(realpathSync(dir.path));
    const started = await startDetached(project, ["--port", String(first)]);
    expect(started.code, started.stderr).to.equal(0);
    const holder = JSON.parse(started.stdout).data.collector;

    const refused = await startDetached(project, ["--port", String(second)]);
    expect(refused.code, refused.stdout).to.equal(2);
    const error = JSON.parse(refused.stdout).error;
    expect(error.code).to.equal("invalid_argument");
    expect(error.message).to.include(`the store ${join(state, "monitor", "telemetry.sqlite")} is in use`);
    expect(error.message).to.include(`started in ${project} on port ${first}, pid ${holder.pid}`);
    expect(error.message).to.include("--db PATH");
    expect(error.message).to.include("--project-store");
    expect((await runningCollectors(env)).map((entry) => entry.port)).to.deep.equal([first]);
  });

  it("obsd itself refuses a store in use even when the holder is not in the registry (a lock, not a check)", async () => {
    const dbPath = join(dir.path, "shared.sqlite");
    const holder = await startCollectorProcess({ stateDir: state, dbPath });
    try {
      // Without its registry entry no check at start could find the holder; only the lock can.
      rmSync(join(state, "monitor", "run"), { recursive: true, force: true });
      const error = await startFailure({ dbPath, env: { OBS_STATE_DIR: join(dir.path, "other-state") } });
      expect(error?.message).to.match(/exited with 2/);
      expect(error?.message).to.include(`the store ${dbPath} is in use by the collector started in`);
      expect(error?.message).to.include(`on port ${holder.port}, pid ${holder.child.pid}`);
      expect((await http(`${holder.url}/api/health`)).status).to.equal(200);
    } finally {
      await holder.stop();
    }
  });

  it("a second collector on a symlink to a store in use is refused with exit 2 (obsd and monitor start)", async () => {
    const dbPath = join(dir.path, "t3.sqlite");
    const link = join(dir.path, "link.sqlite");
    const holder = await startCollectorProcess({ stateDir: state, dbPath });
    try {
      symlinkSync(dbPath, link);
      const error = await startFailure({ dbPath: link, env: { OBS_STATE_DIR: join(dir.path, "other-state") } });
      expect(error?.message).to.match(/exited with 2/);
      expect(error?.message).to.include(`the store ${link} is in use by the collector started in`);
      const refused = await startDetached(dir.path, ["--port", String(await freePort()), "--db", link]);
      expect(refused.code, refused.stdout + refused.stderr).to.equal(2);
      expect(JSON.parse(refused.stdout).error.message).to.include(`on port ${holder.port}, pid ${holder.child.pid}`);
      expect((await runningCollectors(env)).map((entry) => entry.port)).to.deep.equal([holder.port]);
      expect((await http(`${holder.url}/api/health`)).status).to.equal(200);
    } finally {
      await holder.stop();
    }
  });

  it("a store file with a second name (a hard link) is refused with exit 4, before and while a collector holds it", async () => {
    // SQLite keeps a store's log and lock beside the name it was opened by: two collectors on
    // two names of one file each take their own and overwrite each other's pages.
    const first = join(dir.path, "a.sqlite");
    writeFileSync(first, "");
    linkSync(first, join(dir.path, "b.sqlite"));
    const before = await startFailure({ dbPath: first, env: { OBS_STATE_DIR: join(dir.path, "other-state") } });
    expect(before?.message).to.match(/exited with 4/);
    expect(before?.message).to.include(`${first} has 2 names (hard links)`);
    const held = join(dir.path, "c.sqlite");
    const holder = await startCollectorProcess({ stateDir: state, dbPath: held });
    try {
      linkSync(held, join(dir.path, "d.sqlite"));
      const error = await startFailure({
        dbPath: join(dir.path, "d.sqlite"),
        env: { OBS_STATE_DIR: join(dir.path, "other-state") },
      });
      expect(error?.message).to.match(/exited with 4/);
      expect(error?.message).to.include("has 2 names (hard links)");
      expect((await http(`${holder.url}/api/health`)).status).to.equal(200);
    } finally {
      await holder.stop();
    }
  });

  it("a second collector on a store reached through a symlinked folder is refused with exit 2", async () => {
    const real = join(dir.path, "real");
    mkdirSync(real);
    const linked = join(dir.path, "linked");
    symlinkSync(real, linked);
    const holder = await startCollectorProcess({ stateDir: state, dbPath: join(real, "t3.sqlite") });
    try {
      const error = await startFailure({
        dbPath: join(linked, "t3.sqlite"),
        env: { OBS_STATE_DIR: join(dir.path, "other-state") },
      });
      expect(error?.message).to.match(/exited with 2/);
      expect(error?.message).to.include(`on port ${holder.port}, pid ${holder.child.pid}`);
      // monitor start sees the holder itself, before starting a collector that would be refused.
      const refused = await startDetached(dir.path, [
        "--port",
        String(await freePort()),
        "--db",
        join(linked, "t3.sqlite"),
      ]);
      expect(refused.code, refused.stdout + refused.stderr).to.equal(2);
      expect(JSON.parse(refused.stdout).error.details.holder.pid).to.equal(holder.child.pid);
      expect((await http(`${holder.url}/api/health`)).status).to.equal(200);
    } finally {
      await holder.stop();
    }
  });

  it("a collector killed with -9 does not keep its store: the next one starts on it", async () => {
    const dbPath = join(dir.path, "crashed.sqlite");
    const first = await startCollectorProcess({ stateDir: state, dbPath });
    expect(await first.stop("SIGKILL")).to.equal(null);
    const second = await startCollectorProcess({ stateDir: state, dbPath });
    try {
      expect((await http(`${second.url}/api/health`)).json().database.path).to.equal(dbPath);
    } finally {
      expect(await second.stop()).to.equal(0);
    }
    // A clean stop releases it too.
    const third = await startCollectorProcess({ stateDir: state, dbPath });
    await third.stop();
  });

  it("a collector that loses its store lock refuses writes and exits 4, leaving the collector that took it alone", async () => {
    const dbPath = join(dir.path, "taken.sqlite");
    const first = await startCollectorProcess({ stateDir: state, dbPath });
    const exited = new Promise<number | null>((resolve) => first.child.once("exit", (code) => resolve(code)));
    const span = (n: number) =>
      traceRequest("lock", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: BigInt(Date.now()) * 1_000_000n }]);
    let second: Awaited<ReturnType<typeof startCollectorProcess>> | null = null;
    try {
      expect((await postJson(`${first.url}/v1/traces`, span(1))).status).to.equal(200);
      // As if its heartbeat had stopped long enough for another start to take the store.
      rmSync(`${dbPath}.lock`, { recursive: true, force: true });
      second = await startCollectorProcess({ dbPath, env: { OBS_STATE_DIR: join(dir.path, "other-state") } });
      // It finds out at its next heartbeat, within 5 s.
      const within = new Promise((resolve) => setTimeout(() => resolve("still running after 15 s"), 15_000).unref());
      expect(await Promise.race([exited, within]), first.output()).to.equal(4);
      expect(first.output()).to.include(`obsd: lost the lock on ${dbPath}`);
      expect(first.output()).to.include("refuses writes and stops");
      const owner = JSON.parse(readFileSync(`${dbPath}.owner.json`, "utf8"));
      expect(owner.pid).to.equal(second.child.pid);
      expect((await postJson(`${second.url}/v1/traces`, span(2))).status).to.equal(200);
      const traces = (await http(`${second.url}/api/traces?service=lock`)).json();
      expect(traces.data.map((trace: { traceId: string }) => trace.traceId).sort()).to.deep.equal([
        hexId(1, 16),
        hexId(2, 16),
      ]);
    } finally {
      await first.stop();
      if (second) expect(await second.stop()).to.equal(0);
    }
  });

  it("--project-store gives each project its own store, found again after a restart, and status prints it", async () => {
    const [alpha, beta] = [join(realpathSync(dir.path), "alpha"), join(realpathSync(dir.path), "beta")];
    mkdirSync(alpha);
    mkdirSync(beta);
    const [alphaPort, betaPort] = [await freePort(), await freePort()];
    const a = await startDetached(alpha, ["--port", String(alphaPort), "--project-store"]);
    const b = await startDetached(beta, ["--port", String(betaPort)], { OBS_PROJECT_STORE: "1" });
    expect(a.code, a.stdout + a.stderr).to.equal(0);
    expect(b.code, b.stdout + b.stderr).to.equal(0);
    const alphaDb = JSON.parse(a.stdout).data.collector.db_path;
    const betaDb = JSON.parse(b.stdout).data.collector.db_path;
    expect(alphaDb).to.match(new RegExp(`^${state}/projects/alpha-[0-9a-f]{8}/telemetry\\.sqlite$`));
    expect(betaDb).to.match(new RegExp(`^${state}/projects/beta-[0-9a-f]{8}/telemetry\\.sqlite$`));

    const human = await runObs(["monitor", "start", "--detach", "--port", String(alphaPort), "--project-store"], {
      env,
      cwd: alpha,
    });
    expect(human.stdout).to.include(`database ${alphaDb}`);
    const monitorStatus = await runObs(["monitor", "status"], { env, cwd: alpha });
    expect(monitorStatus.stdout).to.include(`database ${alphaDb}`);
    const status = await runObs(["status", "--json"], { env, cwd: alpha });
    expect(JSON.parse(status.stdout).data.database.path).to.equal(alphaDb);

    const stop = await runObs(["monitor", "stop"], { env, cwd: alpha });
    expect(stop.code, stop.stderr).to.equal(0);
    const again = await startDetached(alpha, ["--port", String(alphaPort), "--project-store"]);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout).data.collector.db_path).to.equal(alphaDb);
  });

  it("obs setup agentcli --port N refuses a store another collector holds, with exit 2", async () => {
    const home = join(dir.path, "home");
    mkdirSync(home);
    const agentEnv = {
      ...env,
      HOME: home,
      PATH: `${packagePath("test", "fixtures", "agentcli")}:${process.env.PATH}`,
      OTEL_RESOURCE_ATTRIBUTES: "",
    };
    const [first, second] = [await freePort(), await freePort()];
    const started = await runObs(["monitor", "start", "--detach", "--port", String(first)], { env });
    expect(started.code, started.stderr).to.equal(0);
    const setup = await runObs(["setup", "agentcli", "--port", String(second), "--json"], { env: agentEnv });
    expect(setup.code, setup.stdout).to.equal(2);
    expect(JSON.parse(setup.stdout).error.message).to.include(`on port ${first}`);
    expect((await runningCollectors(env)).map((entry) => entry.port)).to.deep.equal([first]);

    const own = await runObs(["setup", "agentcli", "--port", String(second), "--project-store", "--json"], {
      env: agentEnv,
    });
    expect(own.code, own.stdout).to.equal(0);
    expect(JSON.parse(own.stdout).collector.db_path).to.match(/\/projects\/.*\/telemetry\.sqlite$/);
  });
});
