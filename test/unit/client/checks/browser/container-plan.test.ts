import { expect } from "chai";
import { type CommandResult, ensureWarmContainer } from "../../../../../client/checks/browser/browser-container.js";
import {
  containerImage,
  containerPlan,
  publishedWebDriverUrl,
  urlFromContainer,
} from "../../../../../client/checks/browser/container-plan.js";
import { LifecycleError } from "../../../../../client/lifecycle/lifecycle-error.js";

const ok = (stdout = ""): CommandResult => ({ code: 0, stdout, stderr: "" });
const failed = (stderr: string, code = 1): CommandResult => ({ code, stdout: "", stderr });

/** A docker CLI that answers each subcommand from a script and records what it was asked. */
function scriptedDocker(answers: Record<string, CommandResult>) {
  const calls: string[] = [];
  const run = async (argv: string[]) => {
    calls.push(argv.slice(1).join(" "));
    return answers[argv[1] as string] ?? ok();
  };
  return { calls, run };
}

describe("containerized browsers: docker commands", () => {
  it("uses the default engine_a image, an environment override, and refuses engines without one", () => {
    expect(containerImage("engine_a", {})).to.equal("selenium/standalone-chromium:latest");
    expect(containerImage("engine_a", { OBS_CONTAINER_IMAGE_ENGINE_A: "registry.local/chromium:139" })).to.equal(
      "registry.local/chromium:139",
    );
    expect(containerImage("engine_d", { OBS_CONTAINER_IMAGE_ENGINE_D: "example/engine-d:0.3" })).to.equal(
      "example/engine-d:0.3",
    );
    expect(() => containerImage("engine_d", {})).to.throw(LifecycleError, /set OBS_CONTAINER_IMAGE_ENGINE_D/);
    expect(() => containerImage("engine_b", {})).to.throw(/runs engine_a or engine_d, not engine_b/);
    expect(() => containerImage("engine_a", { OBS_CONTAINER_IMAGE_ENGINE_A: "x; rm -rf /" })).to.throw(
      /is not a container image reference/,
    );
  });

  it("builds one warm, labelled container per engine with WebDriver published on loopback only", () => {
    const plan = containerPlan("engine_a", "selenium/standalone-chromium:latest");
    expect(plan.name).to.equal("obs-browser-engine-a");
    expect(plan.browserName).to.equal("chrome");
    expect(plan.probe).to.deep.equal(["docker", "info", "--format", "{{.ServerVersion}}"]);
    expect(plan.inspect).to.deep.equal(["docker", "inspect", "--format", "{{.State.Running}}", "obs-browser-engine-a"]);
    expect(plan.run).to.deep.equal([
      "docker",
      "run",
      "--detach",
      "--name",
      "obs-browser-engine-a",
      "--label",
      "obs.browser.engine=engine_a",
      "--shm-size",
      "2g",
      "--add-host",
      "host.docker.internal:host-gateway",
      "--publish",
      "127.0.0.1::4444",
      "selenium/standalone-chromium:latest",
    ]);
    expect(plan.port).to.deep.equal(["docker", "port", "obs-browser-engine-a", "4444/tcp"]);
    const engineD = containerPlan("engine_d", "example/engine-d:0.3", "/opt/bin/docker");
    expect(engineD.name).to.equal("obs-browser-engine-d");
    expect(engineD.browserName).to.equal("");
    expect(engineD.run[0]).to.equal("/opt/bin/docker");
    expect(engineD.run.at(-1)).to.equal("example/engine-d:0.3");
  });

  it("reads the published port and rewrites loopback URLs to the host's name in the container", () => {
    expect(publishedWebDriverUrl("127.0.0.1:49153\n")).to.equal("http://127.0.0.1:49153/");
    expect(publishedWebDriverUrl("[::1]:49154\n0.0.0.0:49155\n")).to.equal("http://127.0.0.1:49155/");
    expect(publishedWebDriverUrl("")).to.equal(null);
    expect(urlFromContainer("http://127.0.0.1:5173/login?next=%2F#top")).to.equal(
      "http://host.docker.internal:5173/login?next=%2F#top",
    );
    expect(urlFromContainer("http://localhost/")).to.equal("http://host.docker.internal/");
    expect(urlFromContainer("https://example.com/localhost")).to.equal("https://example.com/localhost");
    expect(urlFromContainer("about:blank")).to.equal("about:blank");
  });

  it("says no container engine is reachable (exit 2) and starts nothing", async () => {
    const docker = scriptedDocker({
      info: failed("Cannot connect to the Docker daemon at unix:///var/run/docker.sock"),
    });
    const plan = containerPlan("engine_a", "selenium/standalone-chromium:latest");
    const error = await ensureWarmContainer(plan, docker.run, async () => true).catch((caught) => caught);
    expect(error).to.be.instanceOf(LifecycleError);
    expect(error.code).to.equal("invalid_argument");
    expect(error.message).to.equal(
      "--containerized needs a container engine, and none is reachable (Cannot connect to the Docker daemon at unix:///var/run/docker.sock); start Docker (or point DOCKER_HOST at one), or run without --containerized",
    );
    expect(docker.calls).to.deep.equal(["info --format {{.ServerVersion}}"]);
    const noCli = await ensureWarmContainer(plan, scriptedDocker({ info: failed("", 127) }).run).catch((e) => e);
    expect(noCli.message).to.match(/none is reachable \(the docker CLI is not installed\)/);
  });

  it("reuses a running container and starts a missing one", async () => {
    const plan = containerPlan("engine_a", "selenium/standalone-chromium:latest");
    const warm = scriptedDocker({ inspect: ok("true\n"), port: ok("127.0.0.1:49153\n") });
    const ready: string[] = [];
    const reused = await ensureWarmContainer(plan, warm.run, async (url) => ready.push(url) > 0);
    expect(reused).to.deep.equal({ webdriverUrl: "http://127.0.0.1:49153/", started: false });
    expect(warm.calls.map((call) => call.split(" ")[0])).to.deep.equal(["info", "inspect", "port"]);
    expect(ready).to.deep.equal(["http://127.0.0.1:49153/"]);

    const cold = scriptedDocker({ inspect: failed("Error: No such object"), port: ok("127.0.0.1:49160\n") });
    const started = await ensureWarmContainer(plan, cold.run, async () => true);
    expect(started).to.deep.equal({ webdriverUrl: "http://127.0.0.1:49160/", started: true });
    expect(cold.calls.map((call) => call.split(" ")[0])).to.deep.equal(["info", "inspect", "rm", "run", "port"]);

    const pullFails = scriptedDocker({
      inspect: ok("false\n"),
      run: failed("Unable to find image\npull access denied"),
    });
    const error = await ensureWarmContainer(plan, pullFails.run, async () => true).catch((caught) => caught);
    expect(error.message).to.equal(
      "could not start the engine_a container from selenium/standalone-chromium:latest: Unable to find image",
    );
    const neverReady = scriptedDocker({ inspect: ok("true"), port: ok("127.0.0.1:49153") });
    const timeout = await ensureWarmContainer(plan, neverReady.run, async () => false).catch((caught) => caught);
    expect(timeout.code).to.equal("timeout");
  });
});
