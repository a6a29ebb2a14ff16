import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { delimiter, join } from "node:path";
import { expect } from "chai";
import { parse } from "jsonc-parser";
import { findOnPath } from "../../client/executables/find-executable.js";
import { MCP_TOOLS } from "../../daemon/mcp/tool-list.js";
import { packagePath } from "../../shared/package-root.js";
import { http } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { compileSchema } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

const FIXTURE_BIN = packagePath("test", "fixtures", "agentcli");
const validateSetup = compileSchema(
  JSON.parse(readFileSync(packagePath("schemas", "setup", "setup.json"), "utf8")) as object,
);

const ORIGINAL_SETTINGS = `// my agentcli settings
{
  "theme": "solarized", // the dark one
  /* the model I pay for */
  "model": "large",
  "telemetry": { "enabled": false }
}
`;

/** The test's PATH without folders holding an `obs`, so setup registers this checkout's bin/obs.js. */
const PATH_WITHOUT_OBS = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((folder) => findOnPath("obs", folder) === null)
  .join(delimiter);

/** A user's world in temporary folders: home, obs state, and the fixture agent on PATH. */
function agentWorld(options: { agentOnPath?: boolean; port?: number } = {}) {
  const home = tempDir("obs-agent-home-");
  const env: NodeJS.ProcessEnv = {
    HOME: home.path,
    OBS_STATE_DIR: join(home.path, "state"),
    PATH: `${options.agentOnPath === false ? "" : `${FIXTURE_BIN}:`}${PATH_WITHOUT_OBS}`,
    OBS_MONITOR_PORT: options.port === undefined ? "" : String(options.port),
    OBS_MONITOR_URL: "",
    OTEL_RESOURCE_ATTRIBUTES: "",
    // A developer's own signal endpoints would be dropped with a warning on stderr.
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "",
    AGENTCLI_FIXTURE_RECORD: join(home.path, "agentcli-invocations.ndjson"),
  };
  const settingsPath = join(home.path, ".agentcli", "settings.json");
  const project = join(home.path, "project");
  mkdirSync(project);
  return {
    home,
    env,
    project,
    settingsPath,
    writeSettings(text: string) {
      mkdirSync(join(home.path, ".agentcli"), { recursive: true });
      writeFileSync(settingsPath, text);
    },
    invocations(): { argv?: string[]; env?: Record<string, string | null>; signal?: string; usage?: unknown[] }[] {
      const path = env.AGENTCLI_FIXTURE_RECORD as string;
      if (!existsSync(path)) return [];
      return readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
    },
    registryEntries(): string[] {
      const dir = join(env.OBS_STATE_DIR as string, "monitor", "run");
      return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".json")) : [];
    },
    async stopCollectors(): Promise<void> {
      for (const name of this.registryEntries()) {
        const entry = JSON.parse(readFileSync(join(env.OBS_STATE_DIR as string, "monitor", "run", name), "utf8"));
        await runObs(["monitor", "stop", "--port", String(entry.port)], { env });
      }
    },
  };
}

/** `obs setup agentcli --json` run from the world's project folder. */
async function setupJson(world: { env: NodeJS.ProcessEnv; project: string }, extra: string[] = []) {
  const result = await runObs(["setup", "agentcli", "--json", ...extra], { env: world.env, cwd: world.project });
  const document = JSON.parse(result.stdout);
  expect(validateSetup(document), JSON.stringify(validateSetup.errors)).to.equal(true);
  expect(result.stderr).to.equal("");
  return { code: result.code, document };
}

function holdPort(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nnot obs!\n"));
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

async function stillServes(port: number): Promise<boolean> {
  const answer = await http(`http://127.0.0.1:${port}/`).catch(() => null);
  return answer !== null && answer.body.toString() === "not obs!\n";
}

describe("obs setup agentcli and obs agentcli (fixture agent, real obsd)", function () {
  this.timeout(60_000);
  let world: ReturnType<typeof agentWorld>;
  let port: number;

  before(async () => {
    port = await freePort();
    world = agentWorld({ port });
    world.writeSettings(ORIGINAL_SETTINGS);
  });
  after(async () => {
    await world.stopCollectors();
    world.home.cleanup();
  });

  it("without the agent on PATH fails with exit 2 naming it, and touches nothing", async () => {
    const bare = agentWorld({ agentOnPath: false, port });
    try {
      const { code, document } = await setupJson(bare);
      expect(code).to.equal(2);
      expect(document.error.code).to.equal("invalid_argument");
      expect(document.error.message).to.match(/^agentcli was not found on PATH/);
      const human = await runObs(["setup", "agentcli"], { env: bare.env });
      expect(human.code).to.equal(2);
      expect(human.stderr).to.match(/^obs: agentcli was not found on PATH; install the agentcli coding agent/);
      expect(existsSync(bare.settingsPath)).to.equal(false);
      expect(bare.registryEntries()).to.deep.equal([]);
    } finally {
      bare.home.cleanup();
    }
  });

  it("refuses a settings file it cannot parse, leaving it as it was and starting nothing", async () => {
    const broken = agentWorld({ port });
    try {
      broken.writeSettings('{ "theme": "dark" "model": 1 }');
      const { code, document } = await setupJson(broken);
      expect(code).to.equal(2);
      expect(document.error.code).to.equal("invalid_config");
      expect(document.error.message).to.include(`${broken.settingsPath} is not valid JSON with comments`);
      expect(readFileSync(broken.settingsPath, "utf8")).to.equal('{ "theme": "dark" "model": 1 }');
      expect(broken.registryEntries()).to.deep.equal([]);
    } finally {
      broken.home.cleanup();
    }
  });

  it("refuses a settings path it cannot edit (a folder there, a repeated telemetry key) with exit 2 naming it, starting nothing", async () => {
    const odd = agentWorld({ port });
    try {
      mkdirSync(odd.settingsPath, { recursive: true });
      const folder = await setupJson(odd);
      expect(folder.code).to.equal(2);
      expect(folder.document.error.code).to.equal("invalid_config");
      expect(folder.document.error.message).to.equal(
        `${odd.settingsPath} is a folder, not a file; obs left it unchanged`,
      );
      rmSync(odd.settingsPath, { recursive: true });
      const twice = '{\n  "telemetry": {"enabled": false},\n  "telemetry": {"enabled": false}\n}\n';
      odd.writeSettings(twice);
      const repeated = await setupJson(odd);
      expect(repeated.code).to.equal(2);
      expect(repeated.document.error.message).to.match(
        /"telemetry" appears twice in .*settings\.json \(lines 2 and 3\)/,
      );
      expect(readFileSync(odd.settingsPath, "utf8")).to.equal(twice);
      expect(odd.registryEntries()).to.deep.equal([]);
      // A state folder another user could change is a configuration to fix, as in every command.
      rmSync(odd.settingsPath);
      const open = join(odd.home.path, "open");
      mkdirSync(open);
      chmodSync(open, 0o777);
      const unsafe = await setupJson({ ...odd, env: { ...odd.env, OBS_STATE_DIR: join(open, "state") } });
      expect(unsafe.code).to.equal(2);
      expect(unsafe.document.error.code).to.equal("invalid_config");
      expect(unsafe.document.error.message).to.match(/^refusing the state folder/);
    } finally {
      odd.home.cleanup();
    }
  });

  it("warns, on stderr and in the document, that a collector it starts beyond loopback is reachable from other machines", async () => {
    const exposed = agentWorld({ port: await freePort() });
    exposed.env.OBS_MONITOR_HOST = "0.0.0.0";
    try {
      const result = await runObs(["setup", "agentcli", "--json"], { env: exposed.env, cwd: exposed.project });
      expect(result.code).to.equal(0);
      const document = JSON.parse(result.stdout);
      expect(validateSetup(document), JSON.stringify(validateSetup.errors)).to.equal(true);
      expect(document.warnings).to.deep.equal([
        "listening on 0.0.0.0, which is reachable from other machines; obsd has no authentication.",
      ]);
      expect(result.stderr).to.equal(
        "obs: warning: listening on 0.0.0.0, which is reachable from other machines; obsd has no authentication.\n",
      );
      const again = await runObs(["setup", "agentcli"], { env: exposed.env, cwd: exposed.project });
      expect(again.code).to.equal(0);
      expect(again.stderr).to.match(/^obs: warning: listening on 0\.0\.0\.0, which is reachable from other machines/);
    } finally {
      await exposed.stopCollectors();
      exposed.home.cleanup();
    }
  });

  it("enables the agent's telemetry and registers obs's MCP server keeping its comments, keeps a backup and starts a collector", async () => {
    const { code, document } = await setupJson(world);
    expect(code).to.equal(0);
    const url = `http://127.0.0.1:${port}`;
    expect(document.agent).to.deep.equal({ name: "agentcli", path: join(FIXTURE_BIN, "agentcli"), version: "1.4.2" });
    expect(document.collector).to.deep.include({ url, port, started: true, reused: false });
    expect(document.settings).to.deep.include({
      path: world.settingsPath,
      created: false,
      changed: true,
      backup_path: `${world.settingsPath}.bak`,
    });
    expect(document.settings.changes.map((change: { key: string }) => change.key)).to.deep.equal([
      "telemetry.enabled",
      "telemetry.target",
      "telemetry.otlpEndpoint",
      "mcpServers.obs.command",
      "mcpServers.obs.args",
      "mcpServers.obs.cwd",
    ]);
    expect(document.settings.skipped).to.deep.equal([]);
    const text = readFileSync(world.settingsPath, "utf8");
    // No obs on the world's PATH, so the entry runs this node on this checkout's bin/obs.js.
    expect(parse(text).mcpServers).to.deep.equal({
      obs: { command: process.execPath, args: [packagePath("bin", "obs.js"), "mcp"], cwd: world.project },
    });
    expect(text.startsWith(ORIGINAL_SETTINGS.split('  "telemetry"')[0] as string)).to.equal(true);
    expect(text).to.include(`"otlpEndpoint": "${url}"`);
    expect(readFileSync(`${world.settingsPath}.bak`, "utf8")).to.equal(ORIGINAL_SETTINGS);
    expect(document.launcher.changed).to.equal(true);
    const health = (await http(`${url}/api/health`)).json();
    expect(health.status).to.equal("ok");
  });

  it("changes nothing when run a second time", async () => {
    const before = { text: readFileSync(world.settingsPath, "utf8"), mtime: statSync(world.settingsPath).mtimeMs };
    const backupMtime = statSync(`${world.settingsPath}.bak`).mtimeMs;
    const { code, document } = await setupJson(world);
    expect(code).to.equal(0);
    expect(document.settings).to.deep.include({ changed: false, backup_path: null, changes: [] });
    expect(document.collector).to.deep.include({ started: false, reused: true, port });
    expect(document.launcher.changed).to.equal(false);
    expect(readFileSync(world.settingsPath, "utf8")).to.equal(before.text);
    expect(statSync(world.settingsPath).mtimeMs).to.equal(before.mtime);
    expect(statSync(`${world.settingsPath}.bak`).mtimeMs).to.equal(backupMtime);
    expect(world.registryEntries()).to.have.length(1);
  });

  it("the agent starts the registered obs mcp from the project folder and lists its tools", async () => {
    const result = await runObs(["agentcli", "mcp", "list"], { env: world.env });
    expect(result.code, result.stderr).to.equal(0);
    const line = result.stdout.trim();
    expect(line).to.match(/^obs: /);
    expect(line.slice("obs: ".length).split(", ")).to.deep.equal(MCP_TOOLS.map((tool) => tool.name));
  });

  it("launches the agent for a version query, and no telemetry arrives", async () => {
    const result = await runObs(["agentcli", "--version"], { env: world.env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal("agentcli 1.4.2\n");
    expect(result.stderr).to.equal("");
    const health = (await http(`http://127.0.0.1:${port}/api/health`)).json();
    expect(health.counts).to.deep.include({ spans: 0, logs: 0 });
  });

  it("passes every argument through exactly, with the collector and namespace injected", async () => {
    const args = [
      "--json",
      "--port",
      "1",
      "a b  c",
      "'single'",
      '"double"',
      "--",
      "--help",
      "",
      "$HOME",
      "*",
      "ünï\tcode",
      "--setup=agentcli",
    ];
    const result = await runObs(["agentcli", ...args], {
      env: { ...world.env, OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=ci,team=a%2Cb" },
    });
    expect(result.code, result.stderr).to.equal(0);
    const last = world.invocations().at(-1);
    expect(last?.argv).to.deep.equal(args);
    const { OTEL_RESOURCE_ATTRIBUTES: attributes, ...rest } = last?.env ?? {};
    expect(rest).to.deep.equal({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      // Not asked for a protocol: the agent keeps its own default.
      OTEL_EXPORTER_OTLP_PROTOCOL: null,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: null,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: null,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: null,
    });
    // A service.instance.id of its own: two sessions at once are two series, not one cumulative
    // series whose points alternate between processes (each read as a reset).
    expect(attributes).to.match(
      /^deployment\.environment\.name=ci,team=a%2Cb,service\.namespace=agentcli-agents,service\.instance\.id=[0-9a-f-]{36}$/,
    );
    await runObs(["agentcli", "--version"], { env: world.env });
    const again = world.invocations().at(-1)?.env?.OTEL_RESOURCE_ATTRIBUTES;
    expect(again?.split("service.instance.id=")[1]).to.not.equal(attributes?.split("service.instance.id=")[1]);
  });

  it("sends every signal to the collector, a signal's own endpoint in the caller's environment dropped with a warning", async () => {
    const result = await runObs(["agentcli", "--version"], {
      env: { ...world.env, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://127.0.0.1:9/v1/metrics" },
    });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      `obs: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is not passed to agentcli: its telemetry goes to http://127.0.0.1:${port}`,
    );
    expect(world.invocations().at(-1)?.env?.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? null).to.equal(null);
  });

  it("stores a prompt turn's span and log under service.namespace=agentcli-agents", async () => {
    const result = await runObs(["agentcli", "-p", "summarise the repo"], {
      env: { ...world.env, OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=ci,service.namespace=mine" },
    });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal("echo: summarise the repo\n");
    const base = `http://127.0.0.1:${port}`;
    const spans = (await http(`${base}/api/spans/search?service=agentcli`)).json().data;
    expect(spans).to.have.length(1);
    expect(spans[0].operation).to.equal("agentcli.turn");
    expect(spans[0].resource.attributes).to.deep.include({
      "service.name": "agentcli",
      "service.namespace": "agentcli-agents",
      "deployment.environment.name": "ci",
    });
    const logs = (await http(`${base}/api/logs?service=agentcli`)).json().data;
    expect(logs).to.have.length(1);
    expect(logs[0].resource.attributes["service.namespace"]).to.equal("agentcli-agents");
    expect(logs[0].traceId).to.equal(spans[0].traceId);
  });

  it("pins the protocol only when asked: --protocol grpc sets the agent's key and the launcher's variable, and its turn arrives over gRPC", async () => {
    const pinned = await setupJson(world, ["--protocol", "grpc"]);
    expect(pinned.code).to.equal(0);
    expect(pinned.document.settings.changes).to.deep.equal([
      { key: "telemetry.otlpProtocol", before: null, after: "grpc" },
    ]);
    expect(pinned.document.launcher.changed).to.equal(true);
    const result = await runObs(["agentcli", "-p", "over grpc"], { env: world.env });
    expect(result.code, result.stderr).to.equal(0);
    // The turn's last line is the usage it reported; the line before holds its environment.
    const started = world.invocations().filter((entry) => entry.env !== undefined);
    expect(started.at(-1)?.env?.OTEL_EXPORTER_OTLP_PROTOCOL).to.equal("grpc");
    const spans = (await http(`http://127.0.0.1:${port}/api/spans/search?service=agentcli`)).json().data;
    expect(spans).to.have.length(2);

    // Set up again without it: the launcher no longer sets the variable (the key stays the user's).
    const unpinned = await setupJson(world);
    expect(unpinned.document.settings.changes).to.deep.equal([]);
    expect(unpinned.document.launcher.changed).to.equal(true);
    await runObs(["agentcli", "--version"], { env: world.env });
    expect(world.invocations().at(-1)?.env?.OTEL_EXPORTER_OTLP_PROTOCOL).to.equal(null);
  });

  it("answers how many tokens a session used, by type, from the metrics the agent sent", async () => {
    for (const prompt of ["fix the failing test", "now add a changelog entry"]) {
      const result = await runObs(["agentcli", "-p", prompt], { env: world.env });
      expect(result.code, result.stderr).to.equal(0);
    }
    // Every turn so far recorded the model calls it reported: the first test's, the gRPC test's
    // (its metrics came over gRPC) and this test's two.
    const calls = world
      .invocations()
      .flatMap((entry) => (entry.usage ?? []) as { input: number; output: number; cache: number }[]);
    expect(calls).to.have.length(8);
    const total = (key: "input" | "output" | "cache") => calls.reduce((sum, call) => sum + call[key], 0);
    const env = { ...world.env, OBS_MONITOR_URL: `http://127.0.0.1:${port}` };

    const listed = await runObs(["metrics", "--service", "agentcli", "--json"], { env });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).data.map((metric: { name: string }) => metric.name)).to.include.members([
      "gen_ai.client.token.usage",
      "gen_ai.client.operation.duration",
      "agentcli.token.usage",
      "agentcli.api.request.count",
    ]);

    /** Each group's values added up over the window, by the group's one key. */
    const perGroup = async (args: string[]) => {
      const result = await runObs(["metric", ...args, "--json"], { env });
      expect(result.code, result.stderr).to.equal(0);
      const groups = JSON.parse(result.stdout).data.groups as { group: Record<string, string>; values: number[] }[];
      return Object.fromEntries(
        groups.map((g) => [Object.values(g.group)[0], g.values.reduce((sum, value) => sum + (value ?? 0), 0)]),
      );
    };
    const histogram = await perGroup([
      "gen_ai.client.token.usage",
      "--group-by",
      "attr.gen_ai.token.type",
      "--agg",
      "sum",
    ]);
    expect(histogram).to.deep.equal({ input: total("input"), output: total("output") });
    const counter = await perGroup(["agentcli.token.usage", "--group-by", "attr.type", "--agg", "increase"]);
    expect(counter).to.deep.equal({ input: total("input"), output: total("output"), cache: total("cache") });
    const requests = await perGroup([
      "agentcli.api.request.count",
      "--group-by",
      "attr.status_code",
      "--agg",
      "increase",
    ]);
    expect(requests).to.deep.equal({ "200": calls.length });

    // The human table names each type with its figure.
    const table = await runObs(
      ["metric", "gen_ai.client.token.usage", "--group-by", "attr.gen_ai.token.type", "--agg", "sum"],
      { env },
    );
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.match(/input/);
    expect(table.stdout).to.match(/output/);
  });

  it("returns the agent's exit code", async () => {
    const result = await runObs(["agentcli", "--exit-code", "7"], { env: world.env });
    expect(result.code).to.equal(7);
  });

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`passes ${signal} on to the agent and exits as it did (${code})`, async () => {
      const child = spawn(process.execPath, [packagePath("bin", "obs.js"), "agentcli", "--wait-for-signal"], {
        env: { ...process.env, ...world.env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (status) => resolve(status)));
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (chunk: Buffer) => chunk.includes("ready") && resolve()),
      );
      child.kill(signal);
      expect(await exited).to.equal(code);
      expect(world.invocations().at(-1)).to.deep.equal({ signal });
    });
  }

  it("fails clearly when --port names a port another program holds, and leaves that program alone", async () => {
    const busyPort = await freePort();
    const server = (await holdPort(busyPort)) as Server;
    try {
      const { code, document } = await setupJson(world, ["--port", String(busyPort)]);
      expect(code).to.equal(3);
      expect(document.error.code).to.equal("collector_unavailable");
      expect(document.error.message).to.include(`port ${busyPort} on 127.0.0.1 is held by another process`);
      expect(await stillServes(busyPort)).to.equal(true);
      expect(world.registryEntries()).to.have.length(1);
    } finally {
      server.close();
    }
  });

  it("without a saved collector tells the user to run setup", async () => {
    const fresh = agentWorld({ port });
    try {
      const result = await runObs(["agentcli", "--version"], { env: fresh.env });
      expect(result.code).to.equal(3);
      expect(result.stderr).to.equal(
        "obs: no collector is saved for agentcli and none is running; run: obs setup agentcli\n",
      );
      expect(fresh.invocations()).to.deep.equal([]);
    } finally {
      fresh.home.cleanup();
    }
  });
});

describe("obs setup agentcli when the default port 27686 belongs to another program", function () {
  this.timeout(60_000);
  let world: ReturnType<typeof agentWorld>;
  let server: Server | null;

  before(async () => {
    world = agentWorld();
    // Hold 27686 with a plain server; if something else already holds it, that is just as foreign.
    server = await holdPort(27686);
  });
  after(async () => {
    await world.stopCollectors();
    server?.close();
    world.home.cleanup();
  });

  it("leaves that program running and starts the collector on the next free port", async () => {
    const { code, document } = await setupJson(world);
    expect(code).to.equal(0);
    expect(document.collector.started).to.equal(true);
    expect(document.collector.port).to.be.greaterThan(27686);
    expect(document.settings.created).to.equal(true);
    expect(readFileSync(world.settingsPath, "utf8")).to.include(`"otlpEndpoint": "${document.collector.url}"`);
    if (server) expect(await stillServes(27686)).to.equal(true);

    const again = await setupJson(world);
    expect(again.document.collector).to.deep.include({ reused: true, port: document.collector.port });
  });
});
