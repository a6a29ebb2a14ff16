import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { chooseCollector } from "../../client/discovery/choose-collector.js";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { runObs } from "../helpers/obs-cli.js";
import { processExited } from "../helpers/process-exited.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("discovery of running collectors (real obsd processes)", function () {
  this.timeout(30_000);

  it("finds each project's own collector, and cleans up a killed one's stale entry", async () => {
    const dir = tempDir();
    const projectA = join(dir.path, "projects", "a");
    const projectB = join(dir.path, "projects", "b");
    mkdirSync(join(projectA, "src"), { recursive: true });
    mkdirSync(projectB, { recursive: true });
    const env = { OBS_STATE_DIR: join(dir.path, "state") };
    const a = await startCollectorProcess({
      stateDir: env.OBS_STATE_DIR,
      cwd: projectA,
      dbPath: join(dir.path, "a.sqlite"),
    });
    const b = await startCollectorProcess({
      stateDir: env.OBS_STATE_DIR,
      cwd: projectB,
      dbPath: join(dir.path, "b.sqlite"),
    });
    try {
      const running = await runningCollectors(env);
      expect(running.map((entry) => entry.baseUrl).sort()).to.deep.equal([a.url, b.url].sort());
      const fromA = chooseCollector(running, join(projectA, "src"));
      const fromB = chooseCollector(running, projectB);
      expect(fromA.kind === "chosen" && fromA.entry.baseUrl).to.equal(a.url);
      expect(fromB.kind === "chosen" && fromB.entry.baseUrl).to.equal(b.url);
      expect(chooseCollector(running, dir.path).kind).to.equal("ambiguous");

      // kill -9 leaves a registry file and a socket behind: they must be found stale and removed.
      const staleId = running.find((entry) => entry.baseUrl === b.url)?.instanceId as string;
      await b.stop("SIGKILL");
      expect(existsSync(join(env.OBS_STATE_DIR, "monitor", "run", `${staleId}.json`))).to.equal(true);
      const started = Date.now();
      const after = await runningCollectors(env);
      expect(Date.now() - started).to.be.lessThan(1_500);
      expect(after.map((entry) => entry.baseUrl)).to.deep.equal([a.url]);
      expect(existsSync(join(env.OBS_STATE_DIR, "monitor", "run", `${staleId}.json`))).to.equal(false);
      // The survivor is now the sole collector: chosen from anywhere.
      expect(chooseCollector(after, "/").kind === "chosen").to.equal(true);
    } finally {
      await a.stop();
      await b.stop();
      dir.cleanup();
    }
  });

  it("keeps a live collector that does not answer (stopped with SIGSTOP), and never acts on another project's in its place", async () => {
    const dir = tempDir();
    const projectA = join(dir.path, "a");
    const projectB = join(dir.path, "b");
    mkdirSync(projectA, { recursive: true });
    mkdirSync(projectB, { recursive: true });
    const env = { OBS_STATE_DIR: join(dir.path, "state") };
    const a = await startCollectorProcess({
      stateDir: env.OBS_STATE_DIR,
      cwd: projectA,
      dbPath: join(dir.path, "a.sqlite"),
    });
    const b = await startCollectorProcess({
      stateDir: env.OBS_STATE_DIR,
      cwd: projectB,
      dbPath: join(dir.path, "b.sqlite"),
    });
    const pidA = a.child.pid as number;
    try {
      const entryOfA = (await runningCollectors(env)).find((entry) => entry.baseUrl === a.url);
      const registered = join(env.OBS_STATE_DIR, "monitor", "run", `${entryOfA?.instanceId}.json`);
      process.kill(pidA, "SIGSTOP");
      try {
        expect((await runningCollectors(env)).map((entry) => entry.baseUrl)).to.deep.equal([b.url]);
        expect(existsSync(registered), "the stopped collector's entry").to.equal(true);
        // From A's project: neither B (the only one answering) nor "none running".
        const stop = await runObs(["monitor", "stop", "--json"], { env, cwd: projectA });
        expect(stop.code, stop.stdout + stop.stderr).to.equal(5);
        const error = JSON.parse(stop.stdout).error;
        expect(error.code).to.equal("timeout");
        expect(error.message).to.include(`pid ${pidA}`).and.include(projectA);
        const query = await runObs(["traces"], { env, cwd: projectA });
        expect(query.code, query.stderr).to.equal(5);
        // Named by its port: the same answer, as quickly (its HTTP port accepts, never answers).
        for (const named of [
          ["--port", String(a.port)],
          ["--base-url", a.url],
        ]) {
          const started = Date.now();
          const status = await runObs(["monitor", "status", ...named, "--json"], { env, cwd: projectB });
          expect(status.code, status.stdout).to.equal(5);
          expect(Date.now() - started, "seconds taken").to.be.below(4_000);
          expect(JSON.parse(status.stdout).error.message).to.include(`kill -CONT ${pidA}`);
        }
        // B still runs, and from B's project it is still chosen.
        const fromB = await runObs(["monitor", "status", "--json"], { env, cwd: projectB });
        expect(fromB.code, fromB.stderr).to.equal(0);
        expect(JSON.parse(fromB.stdout).data.collector.base_url).to.equal(b.url);
        // From elsewhere, B is not "the only collector running": A is on record too, so the
        // choice is ambiguous, and A is named as not answering.
        const elsewhere = await runObs(["monitor", "status"], { env, cwd: dir.path });
        expect(elsewhere.code, elsewhere.stderr).to.equal(2);
        expect(elsewhere.stderr).to.include(projectA).and.include(projectB).and.include("not answering");
      } finally {
        process.kill(pidA, "SIGCONT");
      }
      // Answering again, A is found from its project as before.
      const status = await runObs(["monitor", "status", "--json"], { env, cwd: projectA });
      expect(status.code, status.stderr).to.equal(0);
      expect(JSON.parse(status.stdout).data.collector.base_url).to.equal(a.url);
    } finally {
      await a.stop();
      await b.stop();
      dir.cleanup();
    }
  });

  /** Rewrites a registry entry as `change` makes it (a clock step, an entry an older obs wrote). */
  const editEntry = (path: string, change: (entry: Record<string, unknown>) => Record<string, unknown>) =>
    writeFileSync(path, JSON.stringify(change(JSON.parse(readFileSync(path, "utf8")))), { mode: 0o600 });
  const earlier = (entry: Record<string, unknown>, ms: number) => ({
    ...entry,
    startedAt: new Date(Date.parse(String(entry.startedAt)) - ms).toISOString(),
  });

  it("keeps a stopped collector after the wall clock steps forward (its entry's start time reads later)", async () => {
    const dir = tempDir();
    const env = { OBS_STATE_DIR: join(dir.path, "state") };
    const obsd = await startCollectorProcess({ stateDir: env.OBS_STATE_DIR, cwd: dir.path });
    const pid = obsd.child.pid as number;
    try {
      const [entry] = await runningCollectors(env);
      if (!entry) throw new Error("the collector is not on record");
      const registered = join(env.OBS_STATE_DIR, "monitor", "run", `${entry.instanceId}.json`);
      process.kill(pid, "SIGSTOP");
      try {
        // The clock set 10 s ahead since it started: what /proc/stat's btime gives moves with it.
        editEntry(registered, (recorded) => earlier(recorded, 10_000));
        const status = await runObs(["monitor", "status", "--json"], { env, cwd: dir.path });
        expect(status.code, status.stdout + status.stderr).to.equal(5);
        expect(JSON.parse(status.stdout).error.message).to.include(`kill -CONT ${pid}`);
        expect([existsSync(registered), existsSync(entry.socketPath)], "its entry and socket").to.deep.equal([
          true,
          true,
        ]);
      } finally {
        process.kill(pid, "SIGCONT");
      }
      const stop = await runObs(["monitor", "stop", "--json"], { env, cwd: dir.path });
      expect(stop.code, stop.stdout + stop.stderr).to.equal(0);
      expect(processExited(pid)).to.equal(true);
    } finally {
      await obsd.stop();
      dir.cleanup();
    }
  });

  it("stops a collector without its socket by its boot-relative start, and refuses to signal a pid it cannot confirm", async () => {
    const dir = tempDir();
    const env = { OBS_STATE_DIR: join(dir.path, "state") };
    const obsd = await startCollectorProcess({
      stateDir: env.OBS_STATE_DIR,
      cwd: dir.path,
      args: ["--control-socket-check", "1h"],
    });
    const pid = obsd.child.pid as number;
    try {
      const [entry] = await runningCollectors(env);
      if (!entry) throw new Error("the collector is not on record");
      const registered = join(env.OBS_STATE_DIR, "monitor", "run", `${entry.instanceId}.json`);
      const original = readFileSync(registered, "utf8");
      rmSync(entry.socketPath);
      // An entry an older obs wrote: no start of its own to compare with the pid's.
      editEntry(registered, ({ startTicks: _, ...older }) => older);
      const refused = await runObs(["monitor", "stop", "--json"], { env, cwd: dir.path });
      expect(refused.code, refused.stdout + refused.stderr).to.equal(3);
      expect(JSON.parse(refused.stdout).error.message).to.include("nothing was stopped").and.include(`kill ${pid}`);
      expect(processExited(pid)).to.equal(false);
      expect(existsSync(registered), "its entry").to.equal(true);
      // Its own entry, after the clock stepped 10 s ahead: still known for itself, and stopped.
      writeFileSync(registered, original);
      editEntry(registered, (recorded) => earlier(recorded, 10_000));
      const status = await runObs(["monitor", "status", "--json"], { env, cwd: dir.path });
      expect(status.code, status.stdout).to.equal(5);
      expect(existsSync(registered), "its entry").to.equal(true);
      const stop = await runObs(["monitor", "stop", "--json"], { env, cwd: dir.path });
      expect(stop.code, stop.stdout + stop.stderr).to.equal(0);
      expect(processExited(pid)).to.equal(true);
    } finally {
      await obsd.stop();
      dir.cleanup();
    }
  });

  it("keeps a live collector whose control socket was removed (a temp cleaner), names it, and can stop it", async function () {
    this.timeout(60_000);
    const dir = tempDir();
    const project = join(dir.path, "project");
    mkdirSync(project, { recursive: true });
    const env = { OBS_STATE_DIR: join(dir.path, "state") };
    // It would make its socket again within seconds; here it does not, so the clients' part shows.
    const start = (name: string) =>
      startCollectorProcess({
        stateDir: env.OBS_STATE_DIR,
        cwd: project,
        dbPath: join(dir.path, `${name}.sqlite`),
        args: ["--control-socket-check", "1h"],
      });
    const first = await start("first");
    let second: Awaited<ReturnType<typeof start>> | null = null;
    try {
      const [entry] = await runningCollectors(env);
      if (!entry) throw new Error("the collector is not on record");
      const registered = join(env.OBS_STATE_DIR, "monitor", "run", `${entry.instanceId}.json`);
      rmSync(entry.socketPath);

      const status = await runObs(["status", "--json"], { env, cwd: project });
      expect(status.code, status.stdout + status.stderr).to.equal(5);
      const error = JSON.parse(status.stdout).error;
      expect(error.code).to.equal("timeout");
      expect(error.message)
        .to.include(`pid ${entry.pid}`)
        .and.include(`its control socket ${entry.socketPath} is gone`);
      expect(existsSync(registered), "its registry entry").to.equal(true);

      const named = await runObs(["monitor", "status", "--port", String(first.port), "--json"], { env });
      expect(named.code, named.stdout).to.equal(5);
      expect(JSON.parse(named.stdout).error.message).to.include(`its control socket ${entry.socketPath} is gone`);

      const again = await runObs(["monitor", "start", "--detach", "--port", String(first.port), "--json"], { env });
      expect(again.code, again.stdout).to.equal(3);
      expect(JSON.parse(again.stdout).error.message).to.include(
        `port ${first.port} on 127.0.0.1 is held by the obs collector at ${first.url} (pid ${entry.pid})`,
      );
      expect(existsSync(registered), "its registry entry").to.equal(true);

      // Stopped through its registry entry, its process and its own answer over HTTP.
      const stop = await runObs(["monitor", "stop", "--port", String(first.port), "--json"], { env });
      expect(stop.code, stop.stdout + stop.stderr).to.equal(0);
      expect(processExited(entry.pid)).to.equal(true);
      expect(await first.stop()).to.equal(0);
      expect(existsSync(registered)).to.equal(false);

      // The same found by discovery, from the folder it was started in.
      second = await start("second");
      const [other] = await runningCollectors(env);
      if (!other) throw new Error("the second collector is not on record");
      rmSync(other.socketPath);
      const discovered = await runObs(["monitor", "stop", "--json"], { env, cwd: project });
      expect(discovered.code, discovered.stdout + discovered.stderr).to.equal(0);
      expect(processExited(other.pid)).to.equal(true);
    } finally {
      await first.stop();
      await second?.stop();
      dir.cleanup();
    }
  });
});
