import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { chooseCollector } from "../../client/discovery/choose-collector.js";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
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
});
