/**
 * Lifecycle chaos: many starts at once, and a collector killed with kill -9 that leaves its
 * registry entry and socket behind. The user's next command must clean up and carry on.
 */
import { existsSync } from "node:fs";
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { http } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { processExited } from "../helpers/process-exited.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("lifecycle chaos (real processes)", function () {
  this.timeout(90_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  const start = (port: number) => runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env });

  beforeEach(() => {
    dir = tempDir("obs-chaos-");
    env = { OBS_STATE_DIR: dir.path };
  });
  afterEach(async () => {
    for (const entry of await runningCollectors(env))
      await runObs(["monitor", "stop", "--port", String(entry.port)], { env });
    dir.cleanup();
  });

  it("ten concurrent detached starts leave exactly one collector, which all ten report", async () => {
    const port = await freePort();
    const results = await Promise.all(Array.from({ length: 10 }, () => start(port)));
    for (const result of results) expect(result.code, result.stderr).to.equal(0);
    const documents = results.map((result) => JSON.parse(result.stdout).data);
    expect(documents.filter((data) => data.started)).to.have.length(1);
    expect(new Set(documents.map((data) => data.collector.pid)).size).to.equal(1);
    expect(await runningCollectors(env)).to.have.length(1);
  });

  it("after kill -9, the stale entry and socket are cleaned up and a new start on the port works", async () => {
    const port = await freePort();
    const first = JSON.parse((await start(port)).stdout).data.collector;
    expect(existsSync(first.socket_path)).to.equal(true);
    process.kill(first.pid, "SIGKILL");
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (!processExited(first.pid)) return;
        clearInterval(poll);
        resolve();
      }, 20);
    });
    // The dead collector's socket file is still there: nothing removed it.
    expect(existsSync(first.socket_path)).to.equal(true);

    const status = await runObs(["monitor", "status", "--json"], { env });
    expect(status.code).to.equal(3);
    expect(JSON.parse(status.stdout).error.code).to.equal("collector_unavailable");
    expect(existsSync(first.socket_path)).to.equal(false);

    const second = await start(port);
    expect(second.code, second.stderr).to.equal(0);
    const collector = JSON.parse(second.stdout).data.collector;
    expect(collector.instance_id).not.to.equal(first.instance_id);
    expect((await http(`${collector.base_url}/api/health`)).json().instanceId).to.equal(collector.instance_id);
    expect((await runningCollectors(env)).map((entry) => entry.pid)).to.deep.equal([collector.pid]);
  });
});
