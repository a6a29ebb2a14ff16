import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { askCollector } from "../../client/control/control-client.js";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";
import { tempDir } from "../helpers/temp-dir.js";

function registryOf(stateDir: string, instanceId: string): RegistryEntry {
  return JSON.parse(readFileSync(join(stateDir, "monitor", "run", `${instanceId}.json`), "utf8"));
}

describe("control socket and registry (real obsd)", function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("registers itself with its identity, and answers identify on its socket", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    try {
      const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
      const entry = registryOf(dir.path, instanceId);
      expect(entry).to.include({
        instanceId,
        pid: obsd.child.pid,
        baseUrl: obsd.url,
        dbPath: obsd.dbPath,
        host: "127.0.0.1",
        port: obsd.port,
      });
      expect(entry.socketPath).to.equal(join(dir.path, "monitor", "run", `${instanceId}.sock`));
      const answer = await askCollector(entry.socketPath, { op: "identify" });
      expect(answer).to.deep.equal({ ok: true, op: "identify", identity: entry });
      const usage = await askCollector(entry.socketPath, { op: "usage" });
      if (!usage.ok || usage.op !== "usage") throw new Error(`unexpected answer ${JSON.stringify(usage)}`);
      expect(usage.usage.cpuPercent).to.be.a("number").at.least(0);
      // The collector's resident memory: tens of MB, read from /proc by pidusage.
      expect(usage.usage.memoryBytes).to.be.within(10 * 1024 ** 2, 2 * 1024 ** 3);
    } finally {
      await obsd.stop();
    }
  });

  it("refuses unknown requests without stopping", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    try {
      const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
      const socketPath = registryOf(dir.path, instanceId).socketPath;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(socketPath, () => socket.write("kill -9\n"));
        socket.setEncoding("utf8");
        socket.on("data", (line: string) => {
          socket.end();
          resolve(line);
        });
        socket.on("error", reject);
      });
      expect(JSON.parse(answer)).to.deep.include({ ok: false });
      expect((await http(`${obsd.url}/api/health`)).status).to.equal(200);
    } finally {
      await obsd.stop();
    }
  });

  it("answers requests sent in one write in their order, and names the op of an error answer", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    try {
      const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
      const socketPath = registryOf(dir.path, instanceId).socketPath;
      const lines = await new Promise<string[]>((resolve, reject) => {
        let text = "";
        const socket = connect(socketPath, () =>
          // usage is measured asynchronously; identify is answered at once.
          socket.write('{"op":"usage"}\n{"op":"identify"}\n{"op":"exec"}\n{"op":"identify"}\n'),
        );
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => {
          text += chunk;
          const answers = text.split("\n").filter((line) => line !== "");
          if (answers.length === 4) {
            socket.end();
            resolve(answers);
          }
        });
        socket.on("error", reject);
      });
      const answers = lines.map((line) => JSON.parse(line));
      expect(answers.map((answer) => [answer.ok, answer.op])).to.deep.equal([
        [true, "usage"],
        [true, "identify"],
        [false, "exec"],
        [true, "identify"],
      ]);
    } finally {
      await obsd.stop();
    }
  });

  it("stops cleanly on a shutdown request, removing its registry entry and socket", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
    const entry = registryOf(dir.path, instanceId);
    const answer = await askCollector(entry.socketPath, { op: "shutdown" });
    expect(answer).to.deep.equal({ ok: true, op: "shutdown", instanceId });
    expect(await obsd.stop()).to.equal(0); // already exiting: stop() only waits
    expect(obsd.output()).to.match(/shutdown request received/);
    expect(existsSync(join(dir.path, "monitor", "run", `${instanceId}.json`))).to.equal(false);
    expect(existsSync(entry.socketPath)).to.equal(false);
  });

  it("removes its registry entry when stopped by a signal", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
    expect(existsSync(join(dir.path, "monitor", "run", `${instanceId}.json`))).to.equal(true);
    expect(await obsd.stop("SIGINT")).to.equal(0);
    expect(existsSync(join(dir.path, "monitor", "run", `${instanceId}.json`))).to.equal(false);
  });

  it("writes its registry entry again, and its socket, when its run folder is removed", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path, args: ["--control-socket-check", "200ms"] });
    try {
      const { instanceId } = (await http(`${obsd.url}/api/health`)).json();
      const run = join(dir.path, "monitor", "run");
      const before = registryOf(dir.path, instanceId);
      rmSync(run, { recursive: true });
      const deadline = Date.now() + 10_000;
      while ((await runningCollectors({ OBS_STATE_DIR: dir.path })).length === 0) {
        if (Date.now() > deadline) throw new Error(`not found again within 10 s:\n${obsd.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(registryOf(dir.path, instanceId)).to.deep.equal(before);
      expect(statSync(run).mode & 0o777).to.equal(0o700);
      expect(statSync(join(run, `${instanceId}.json`)).mode & 0o777).to.equal(0o600);
      expect(obsd.output()).to.include(
        `obsd: the registry entry ${join(run, `${instanceId}.json`)} was removed; wrote it again`,
      );
    } finally {
      await obsd.stop();
    }
    expect(readdirSync(join(dir.path, "monitor", "run"))).to.deep.equal([]);
  });

  it("fails fast, without hanging, on a socket nothing answers", async () => {
    const started = Date.now();
    let error: Error | null = null;
    try {
      await askCollector(join(dir.path, "gone.sock"), { op: "identify" }, 500);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).to.match(/cannot reach/);
    expect(Date.now() - started).to.be.lessThan(1_000);
  });
});
