/**
 * `obs monitor start --detach` as the user sees it: what the background collector is told,
 * and what it reports about its settings.
 */
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { http } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

type Configuration = Record<string, { value: unknown; source: string }>;

async function healthOf(baseUrl: string): Promise<{ configuration: Configuration; endpoints: { role: string }[] }> {
  return (await http(`${baseUrl}/api/health`)).json();
}

describe("obs monitor start --detach (real processes)", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = tempDir();
    env = { OBS_STATE_DIR: dir.path };
  });
  afterEach(async () => {
    for (const entry of await runningCollectors(env))
      await runObs(["monitor", "stop", "--base-url", entry.baseUrl], { env });
    dir.cleanup();
  });

  it("passes --otlp-standard-ports on to the background collector", async () => {
    const port = await freePort();
    const args = ["monitor", "start", "--detach", "--port", String(port), "--otlp-standard-ports", "--json"];
    const start = await runObs(args, { env });
    expect(start.code, start.stderr).to.equal(0);
    const health = await healthOf(JSON.parse(start.stdout).data.collector.base_url);
    expect(health.configuration.otlpStandardPorts).to.deep.equal({ value: true, source: "flag" });
    // Listening or reported as taken: either way the collector was asked for them.
    expect(health.endpoints.map((endpoint) => endpoint.role)).to.deep.equal(["main", "otlp-grpc", "otlp-http"]);
  });
});
