import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createSocketServer } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { http } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { processExited } from "../helpers/process-exited.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

const validateEnvelope = cliDocumentValidator();

describe("obs monitor: detached start, adopt, status, stop (real processes)", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = tempDir();
    env = { OBS_STATE_DIR: dir.path };
  });
  afterEach(async () => {
    // Whatever a failed test left running is stopped through its control socket.
    for (const entry of await runningCollectors(env))
      await runObs(["monitor", "stop", "--port", String(entry.port)], { env });
    dir.cleanup();
  });

  it("starts a background collector, adopts it on a second start, reports it, and stops it", async () => {
    const port = await freePort();
    const first = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env });
    expect(first.code, first.stderr).to.equal(0);
    const started = JSON.parse(first.stdout);
    expect(validateEnvelope(started), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    expect(started.data).to.include({ started: true });
    expect(started.data.collector.base_url).to.equal(`http://127.0.0.1:${port}`);
    expect((await http(`${started.data.collector.base_url}/api/health`)).json().instanceId).to.equal(
      started.data.collector.instance_id,
    );

    const second = JSON.parse(
      (await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env })).stdout,
    );
    expect(second.data).to.include({ started: false });
    expect(second.data.collector.instance_id).to.equal(started.data.collector.instance_id);

    const status = await runObs(["monitor", "status", "--json"], { env });
    expect(status.code).to.equal(0);
    const report = JSON.parse(status.stdout);
    expect(validateEnvelope(report)).to.equal(true);
    expect(report.data.collector.pid).to.equal(started.data.collector.pid);
    expect(report.data.process.memory_bytes).to.be.greaterThan(0);
    expect(report.data.ui).to.equal(`${started.data.collector.base_url}/`);
    const human = await runObs(["monitor", "status"], { env });
    expect(human.stdout.split("\n")[2]).to.equal(`  web UI ${started.data.collector.base_url}/`);

    const stop = await runObs(["monitor", "stop", "--json"], { env });
    expect(stop.code, stop.stderr).to.equal(0);
    expect(validateEnvelope(JSON.parse(stop.stdout)), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    expect(JSON.parse(stop.stdout).data).to.include({ stopped: true });
    // Exited: init may not have reaped it yet (a zombie still answers signal 0).
    expect(processExited(started.data.collector.pid)).to.equal(true);
    expect(await runningCollectors(env)).to.deep.equal([]);

    const after = await runObs(["monitor", "status", "--json"], { env });
    expect(after.code).to.equal(3);
    expect(JSON.parse(after.stdout).error.code).to.equal("collector_unavailable");
  });

  it("serializes five concurrent detached starts into one collector", async () => {
    const port = await freePort();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env }),
      ),
    );
    for (const result of results) expect(result.code, result.stderr).to.equal(0);
    const documents = results.map((result) => JSON.parse(result.stdout).data);
    expect(documents.filter((data) => data.started)).to.have.length(1);
    expect(new Set(documents.map((data) => data.collector.instance_id)).size).to.equal(1);
    expect(await runningCollectors(env)).to.have.length(1);
  });

  it("leaves an unrelated process on the port alone, and says so", async () => {
    const port = await freePort();
    const other: Server = createServer((_req, res) => res.end("someone else"));
    await new Promise<void>((resolve) => other.listen(port, "127.0.0.1", resolve));
    try {
      const result = await runObs(["monitor", "start", "--detach", "--port", String(port)], { env });
      expect(result.code).to.equal(3);
      expect(result.stderr).to.match(
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is held by another process that is not an obs collector`),
      );
      expect((await http(`http://127.0.0.1:${port}/`)).body.toString()).to.equal("someone else");
      const stop = await runObs(["monitor", "stop", "--port", String(port)], { env });
      expect(stop.code).to.equal(3);
      expect((await http(`http://127.0.0.1:${port}/`)).body.toString()).to.equal("someone else");
      // A foreground start says the same, with the same exit.
      const foreground = await runObs(["monitor", "start", "--port", String(port)], { env });
      expect(foreground.code, foreground.stderr).to.equal(3);
      expect(foreground.stderr).to.match(
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is held by another process that is not an obs collector`),
      );
      expect((await http(`http://127.0.0.1:${port}/`)).body.toString()).to.equal("someone else");
    } finally {
      other.close();
    }
  });

  it("monitor stop with OBS_MONITOR_URL naming an unrelated server exits 3 and stops nothing", async () => {
    const port = await freePort();
    const start = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], {
      env,
      cwd: dir.path,
    });
    expect(start.code, start.stderr).to.equal(0);
    const collector = JSON.parse(start.stdout).data.collector;
    const other: Server = createServer((_req, res) => res.end("someone else"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      for (const action of ["stop", "status"]) {
        const result = await runObs(["monitor", action, "--json"], {
          env: { ...env, OBS_MONITOR_URL: otherUrl },
          cwd: dir.path,
        });
        expect(result.code, `${action}: ${result.stdout}`).to.equal(3);
        const error = JSON.parse(result.stdout).error;
        expect(error.code).to.equal("collector_unavailable");
        expect(error.message).to.include(`${otherUrl} (from OBS_MONITOR_URL)`);
      }
      expect((await runningCollectors(env)).map((entry) => entry.instanceId)).to.deep.equal([collector.instance_id]);
      expect((await http(`${otherUrl}/`)).body.toString()).to.equal("someone else");
    } finally {
      other.close();
    }
  });

  it("monitor stop --base-url stops exactly the collector named, not the one discovery picks", async () => {
    const [first, second] = [await freePort(), await freePort()];
    const project = join(dir.path, "project");
    mkdirSync(project);
    const here = await runObs(["monitor", "start", "--detach", "--port", String(first), "--json"], {
      env,
      cwd: project,
    });
    const there = await runObs(
      ["monitor", "start", "--detach", "--port", String(second), "--db", join(dir.path, "other.sqlite"), "--json"],
      { env, cwd: dir.path },
    );
    expect(here.code, here.stderr).to.equal(0);
    expect(there.code, there.stderr).to.equal(0);
    const named = JSON.parse(there.stdout).data.collector;
    const stop = await runObs(["monitor", "stop", "--base-url", named.base_url, "--json"], { env, cwd: project });
    expect(stop.code, stop.stdout).to.equal(0);
    expect(JSON.parse(stop.stdout).data.collector.instance_id).to.equal(named.instance_id);
    expect((await runningCollectors(env)).map((entry) => entry.port)).to.deep.equal([first]);
  });

  it("monitor stop naming a server that echoes a running collector's instance id exits 3 and stops nothing", async () => {
    const port = await freePort();
    const start = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env });
    expect(start.code, start.stderr).to.equal(0);
    const collector = JSON.parse(start.stdout).data.collector;
    // /api/health is unauthenticated: any local process can claim a collector's identity.
    const impostor: Server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ instanceId: collector.instance_id }));
    });
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
    const impostorPort = (impostor.address() as { port: number }).port;
    try {
      for (const named of [
        ["--port", String(impostorPort)],
        ["--base-url", `http://localhost:${impostorPort}`],
      ]) {
        const stop = await runObs(["monitor", "stop", ...named, "--json"], { env });
        expect(stop.code, stop.stdout).to.equal(3);
        expect(JSON.parse(stop.stdout).error.code).to.equal("collector_unavailable");
      }
      expect((await runningCollectors(env)).map((entry) => entry.instanceId)).to.deep.equal([collector.instance_id]);
      expect((await http(`${collector.base_url}/api/health`)).status).to.equal(200);
    } finally {
      impostor.close();
    }
  });

  it("monitor stop names a collector by any loopback name for its address", async () => {
    const port = await freePort();
    const start = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env });
    expect(start.code, start.stderr).to.equal(0);
    const stop = await runObs(["monitor", "stop", "--base-url", `http://localhost:${port}`, "--json"], { env });
    expect(stop.code, stop.stdout).to.equal(0);
    expect(await runningCollectors(env)).to.deep.equal([]);
  });

  it("refuses --json for a foreground start", async () => {
    const result = await runObs(["monitor", "start", "--json"], { env });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/--json needs --detach/);
  });

  it("does not hang on a socket that accepts but never answers, and drops its entry", async () => {
    const runDir = join(dir.path, "monitor", "run");
    mkdirSync(runDir, { recursive: true });
    const id = "ab".repeat(16);
    const socketPath = join(runDir, `${id}.sock`);
    const silent = createSocketServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    // The process it names is gone: a live one that does not answer is kept (discovery.test.ts).
    const entry = { instanceId: id, pid: 999_999, cwd: dir.path, host: "127.0.0.1", port: 9, socketPath };
    writeFileSync(join(runDir, `${id}.json`), JSON.stringify(entry));
    try {
      const started = Date.now();
      const result = await runObs(["monitor", "status", "--json"], { env, cwd: dir.path });
      // Bounded by the discovery timeout (0.5 s), not by the silent peer; 3 s leaves room for a slow machine.
      expect(Date.now() - started).to.be.below(3_000);
      expect(result.code).to.equal(3);
      expect(existsSync(join(runDir, `${id}.json`))).to.equal(false);
    } finally {
      silent.close();
    }
  });
});
