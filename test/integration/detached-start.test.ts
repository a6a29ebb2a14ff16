/**
 * `obs monitor start --detach` as the user sees it: what the background collector is told,
 * what it reports about where its settings came from, what is said when a running collector
 * is adopted or the address is reachable from other machines, and a start lock left behind
 * by a start killed with kill -9.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createSocketServer } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { packagePath } from "../../shared/package-root.js";
import { http } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

type Configuration = Record<string, { value: unknown; source: string }>;

async function healthOf(baseUrl: string): Promise<{ configuration: Configuration; endpoints: { role: string }[] }> {
  return (await http(`${baseUrl}/api/health`)).json();
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** `obs monitor start --detach --port PORT`, running on its own, to be killed mid-start. */
function startInBackground(port: number, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    process.execPath,
    [packagePath("bin", "obs.js"), "monitor", "start", "--detach", "--port", String(port)],
    {
      env: { ...process.env, ...env },
      stdio: "ignore",
    },
  );
}

/** Polls `done` every 2 ms; fails with `why` after 10 s. */
async function until(done: () => boolean, why: string): Promise<void> {
  const started = Date.now();
  while (!done()) {
    expect(Date.now() - started, why).to.be.below(10_000);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
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
      await runObs(["monitor", "stop", "--base-url", entry.baseUrl.replace("0.0.0.0", "127.0.0.1")], { env });
    dir.cleanup();
  });

  it("takes bare obs with flags as obs monitor start with them (obs --port P --detach)", async () => {
    const port = await freePort();
    const start = await runObs(["--port", String(port), "--detach", "--json"], { env });
    expect(start.code, start.stderr).to.equal(0);
    expect(JSON.parse(start.stdout).data.collector.base_url).to.equal(`http://127.0.0.1:${port}`);
    const refused = await runObs(["--bogus"], { env });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/^obs: monitor start: unknown option --bogus; see obs monitor start --help/);
    // A flag's value that reads like a command is still the start's value.
    const valued = await runObs(["--retention", "logs", "--detach"], { env });
    expect(valued.code).to.equal(2);
    expect(valued.stderr).to.match(/invalid duration "logs"/);
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

  it("reports where each setting came from: flag, environment or default, as a foreground start would", async () => {
    const port = await freePort();
    const start = await runObs(
      ["monitor", "start", "--detach", "--port", String(port), "--max-body-size", "8MiB", "--json"],
      { env: { ...env, OBS_RETENTION: "2d", OBS_MAX_DB_SIZE: "512MiB" } },
    );
    expect(start.code, start.stderr).to.equal(0);
    const { configuration } = await healthOf(JSON.parse(start.stdout).data.collector.base_url);
    const sources = Object.fromEntries(Object.entries(configuration).map(([name, { source }]) => [name, source]));
    expect(sources).to.deep.equal({
      monitorHost: "default",
      monitorPort: "flag",
      db: "default",
      retention: "env",
      maxDbSize: "env",
      maxBodySize: "flag",
      otlpStandardPorts: "default",
    });
    expect(configuration.retention?.value).to.equal("2d");
    expect(configuration.maxDbSize?.value).to.equal("512MiB");
    expect(configuration.maxBodySize?.value).to.equal("8MiB");
    expect(configuration.db?.value).to.equal(join(dir.path, "monitor", "telemetry.sqlite"));

    // obs status --json shows the same configuration.
    const status = await runObs(["status", "--json", "--port", String(port)], { env });
    expect(status.code, status.stderr).to.equal(0);
    expect(JSON.parse(status.stdout).data.configuration.retention).to.deep.equal({ value: "2d", source: "env" });
  });

  it("says which settings differ when it adopts a running collector started with others", async () => {
    const port = await freePort();
    const first = await runObs(
      ["monitor", "start", "--detach", "--port", String(port), "--retention", "1d", "--max-db-size", "256MiB"],
      { env },
    );
    expect(first.code, first.stderr).to.equal(0);

    const same = await runObs(
      ["monitor", "start", "--detach", "--port", String(port), "--retention", "24h", "--max-db-size", "256MiB"],
      { env },
    );
    expect(same.code, same.stderr).to.equal(0);
    expect(same.stdout).to.include("already running (adopted)");
    expect(same.stderr).to.equal("");

    const other = join(dir.path, "other.sqlite");
    const differs = await runObs(
      ["monitor", "start", "--detach", "--port", String(port), "--retention", "2d", "--db", other, "--json"],
      { env },
    );
    expect(differs.code, differs.stderr).to.equal(0);
    const document = JSON.parse(differs.stdout);
    expect(document.data.started).to.equal(false);
    const warning = differs.stderr;
    expect(warning).to.match(/^obs: warning: /);
    expect(warning).to.include(`http://127.0.0.1:${port}`);
    expect(warning).to.include("--retention 1d (asked for 2d)");
    expect(warning).to.include(`--db ${join(dir.path, "monitor", "telemetry.sqlite")} (asked for ${other})`);
    expect(warning).to.include("--max-db-size 256MiB (asked for 1GiB, the default)");
    expect(warning).not.to.include("--max-body-size");
    expect(warning).not.to.include("--otlp-standard-ports");
    expect(document.warnings).to.have.length(1);
    expect(warning).to.include(document.warnings[0]);
  });

  it("adopts the collector on 127.0.0.1 for --host localhost, and names a collector that holds the port elsewhere", async () => {
    const port = await freePort();
    const first = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env });
    expect(first.code, first.stderr).to.equal(0);
    const { pid, base_url: baseUrl } = JSON.parse(first.stdout).data.collector;

    const named = await runObs(
      ["monitor", "start", "--detach", "--host", "localhost", "--port", String(port), "--json"],
      {
        env,
      },
    );
    // It was said to be "held by another process that is not an obs collector" (exit 3).
    expect(named.code, named.stderr).to.equal(0);
    const document = JSON.parse(named.stdout);
    expect(document.data.started).to.equal(false);
    expect(document.data.collector.pid).to.equal(pid);
    expect(named.stderr).to.equal("");

    // Every interface was asked for: not the loopback collector's address, but its port.
    const everywhere = await runObs(["monitor", "start", "--detach", "--host", "0.0.0.0", "--port", String(port)], {
      env,
    });
    expect(everywhere.code).to.equal(3);
    expect(everywhere.stderr).to.include(
      `port ${port} on 0.0.0.0 is held by the obs collector at ${baseUrl} (pid ${pid})`,
    );
    expect(everywhere.stderr).to.include(`obs monitor stop --base-url ${baseUrl}`);

    // In the foreground too: named, exit 3, not the "already in use" of a bad argument.
    const foreground = await runObs(
      ["monitor", "start", "--host", "0.0.0.0", "--port", String(port), "--db", join(dir.path, "other.sqlite")],
      { env },
    );
    expect(foreground.code, foreground.stderr).to.equal(3);
    expect(foreground.stderr).to.include(
      `port ${port} on 0.0.0.0 is held by the obs collector at ${baseUrl} (pid ${pid})`,
    );
  });

  it("two starts racing for one port from two state folders: the one that loses exits 3", async () => {
    const port = await freePort();
    const other = { OBS_STATE_DIR: join(dir.path, "other-state") };
    try {
      // Both find the port free and spawn a collector; one of the two collectors gets it.
      const results = await Promise.all(
        [env, other].map((state) =>
          runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], { env: state }),
        ),
      );
      const codes = results.map((result) => result.code).sort();
      expect(codes, results.map((result) => result.stdout).join("\n")).to.deep.equal([0, 3]);
      const lost = JSON.parse((results.find((result) => result.code === 3) as { stdout: string }).stdout).error;
      expect(lost.code).to.equal("collector_unavailable");
      expect(lost.message).to.include(`port ${port} on 127.0.0.1 is held by another process`);
    } finally {
      for (const entry of await runningCollectors(other)) {
        await runObs(["monitor", "stop", "--base-url", entry.baseUrl], { env: other });
      }
    }
  });

  it("refuses an address this machine cannot listen on, saying so, with exit 2", async () => {
    const port = await freePort();
    // TEST-NET-1 (RFC 5737): an address no machine here has.
    const start = await runObs(["monitor", "start", "--detach", "--host", "192.0.2.1", "--port", String(port)], {
      env,
    });
    expect(start.code).to.equal(2);
    expect(start.stderr).to.include(`cannot listen on 192.0.2.1 port ${port}:`);
    expect(start.stderr).to.include("EADDRNOTAVAIL");
    expect(await runningCollectors(env)).to.deep.equal([]);
  });

  it("exits as the collector did when it stops while starting: a store it cannot open is exit 4", async () => {
    const port = await freePort();
    const file = join(dir.path, "a-file");
    writeFileSync(file, "");
    const db = join(file, "telemetry.sqlite");
    const start = await runObs(["monitor", "start", "--detach", "--port", String(port), "--db", db, "--json"], { env });
    // It was exit 3, "collector unavailable", whatever the collector's own exit said.
    expect(start.code, start.stderr).to.equal(4);
    const error = JSON.parse(start.stdout).error;
    expect(error.code).to.equal("store_failure");
    expect(error.message).to.include("the collector exited while starting");
    expect(error.message).to.include("cannot open the store");
  });

  it("warns that a collector bound beyond loopback is reachable from other machines", async () => {
    const port = await freePort();
    const start = await runObs(["monitor", "start", "--detach", "--host", "0.0.0.0", "--port", String(port)], { env });
    expect(start.code, start.stderr).to.equal(0);
    expect(start.stderr).to.match(/^obs: warning: .*0\.0\.0\.0.*reachable from other machines.*no authentication/m);
    // Adopting it says so again: the user is asking for that address once more.
    const again = await runObs(["monitor", "start", "--detach", "--host", "0.0.0.0", "--port", String(port)], { env });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/reachable from other machines/);

    const elsewhere = ["--port", String(await freePort()), "--db", join(dir.path, "loopback.sqlite")];
    const loopback = await runObs(["monitor", "start", "--detach", ...elsewhere], { env });
    expect(loopback.code, loopback.stderr).to.equal(0);
    expect(loopback.stderr).to.equal("");
  });

  it("takes over the start lock of a start killed with kill -9, at once", async () => {
    // A registry entry whose socket never answers holds every start in its lookup for a
    // while, after it has taken the lock and before it starts anything.
    const runDir = join(dir.path, "monitor", "run");
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const id = "cd".repeat(16);
    const socketPath = join(runDir, `${id}.sock`);
    const silent = createSocketServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    const entryPath = join(runDir, `${id}.json`);
    writeFileSync(
      entryPath,
      JSON.stringify({ instanceId: id, pid: process.pid, cwd: dir.path, host: "127.0.0.1", port: 9, socketPath }),
    );
    const lockDir = join(dir.path, "monitor", "start.lock.lock");
    const port = await freePort();
    const victim = startInBackground(port, env);
    try {
      await until(() => existsSync(lockDir), "the start never took its lock");
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      victim.kill("SIGKILL");
      await exited(victim);
      silent.close();
      rmSync(entryPath, { force: true });
    }
    expect(existsSync(lockDir), "kill -9 leaves the lock behind").to.equal(true);

    const started = Date.now();
    const next = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], {
      env,
      timeoutMs: 10_000,
    });
    expect(next.code, next.stderr).to.equal(0);
    expect(JSON.parse(next.stdout).data.started).to.equal(true);
    // Not after the lock's 30 s heartbeat timeout: its holder is known to be gone.
    expect(Date.now() - started).to.be.below(8_000);
  });

  it("adopts the collector a start killed while it was starting had spawned, once it registers", async () => {
    const port = await freePort();
    const logs = join(dir.path, "monitor", "logs");
    const lockFile = join(dir.path, "monitor", "start.lock");
    const victim = startInBackground(port, env);
    try {
      // The start names the collector it spawned in its lock: killed now, it leaves the
      // collector starting and the lock behind.
      await until(
        () =>
          existsSync(logs) && readdirSync(logs).length > 0 && /^collector \d+$/m.test(readFileSync(lockFile, "utf8")),
        "the start never spawned its collector",
      );
    } finally {
      victim.kill("SIGKILL");
      await exited(victim);
    }
    const next = await runObs(["monitor", "start", "--detach", "--port", String(port), "--json"], {
      env,
      timeoutMs: 15_000,
    });
    expect(next.code, next.stdout + next.stderr).to.equal(0);
    const { data } = JSON.parse(next.stdout);
    expect(data.started).to.equal(false);
    expect(data.collector.port).to.equal(port);
    expect(await runningCollectors(env)).to.have.length(1);
  });
});
