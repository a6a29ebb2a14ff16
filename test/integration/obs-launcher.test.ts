import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("the obs launcher", function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("runs the foreground collector when called bare, on the default database in the state folder", async () => {
    const obs = await startCollectorProcess({
      stateDir: dir.path,
      argv: [packagePath("bin", "obs.js")],
      env: { OBS_MONITOR_PORT: "0" },
    });
    try {
      expect(obs.output()).to.include(join(dir.path, "monitor", "telemetry.sqlite"));
      const health = (await http(`${obs.url}/api/health`)).json();
      expect(health.database.path).to.equal(join(dir.path, "monitor", "telemetry.sqlite"));
    } finally {
      expect(await obs.stop("SIGINT")).to.equal(0);
    }
  });

  it("runs the same collector as `obs monitor start` with its flags", async () => {
    const dbPath = join(dir.path, "flags.sqlite");
    const obs = await startCollectorProcess({
      stateDir: dir.path,
      argv: [packagePath("bin", "obs.js"), "monitor", "start", "-p", "0", "--db", dbPath, "--retention", "2d"],
    });
    try {
      const health = (await http(`${obs.url}/api/health`)).json();
      expect(health.database.path).to.equal(dbPath);
      expect(health.retention.maxAge).to.equal("2d");
    } finally {
      expect(await obs.stop()).to.equal(0);
    }
  });
});
