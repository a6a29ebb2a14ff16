import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect } from "chai";
import { MCP_TOOLS } from "../../daemon/mcp/tool-list.js";
import type { ServiceRecord } from "../../shared/api-records.js";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const MS = 1_000_000n;

/** This process's environment without a collector named by OBS_MONITOR_URL, plus `extra`. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== "OBS_MONITOR_URL") env[name] = value;
  }
  return { ...env, ...extra };
}

/** One span of `service`, a minute ago, sent to the collector. */
async function sendSpan(obsd: CollectorProcess, service: string, n: number): Promise<void> {
  const startNs = BigInt(Date.now() - 60_000) * MS;
  const response = await postJson(
    `${obsd.url}/v1/traces`,
    traceRequest(service, [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs }]),
  );
  expect(response.status).to.equal(200);
}

/** What list_services should answer: /api/services' records, their fields in snake_case as MCP names them. */
async function apiServices(obsd: CollectorProcess): Promise<{ name: string; last_seen_at: string }[]> {
  const { data } = (await http(`${obsd.url}/api/services`)).json<{ data: ServiceRecord[] }>();
  return data.map((service) => ({ name: service.name, last_seen_at: service.lastSeenAt }));
}

/** The text of a tool result's one text block. */
function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe("obs mcp (stdio, with the SDK's client)", function () {
  this.timeout(60_000);
  const clients: Client[] = [];
  const cleanups: (() => unknown)[] = [];

  /** `obs mcp ...args` started by the SDK's stdio client, in `cwd`. */
  async function connect(args: string[], cwd: string, env: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [packagePath("bin", "obs.js"), "mcp", ...args],
      cwd,
      env: childEnv(env),
      stderr: "pipe",
    });
    const client = new Client({ name: "mcp-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("serves the tools of the collector named by --base-url", async () => {
    const obsd = await startCollectorProcess();
    cleanups.push(() => obsd.stop());
    await sendSpan(obsd, "mcp-stdio-explicit", 1);
    const client = await connect(["--base-url", obsd.url], process.cwd(), {});
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).to.deep.equal(MCP_TOOLS.map((tool) => tool.name));
    const result = await client.callTool({ name: "list_services", arguments: {} });
    expect(result.isError).to.not.equal(true);
    expect((result.structuredContent as { services: { name: string }[] }).services).to.deep.equal(
      await apiServices(obsd),
    );
    expect(textOf(result)).to.include('"mcp-stdio-explicit"');
    const traces = await client.callTool({ name: "search_traces", arguments: { service: "mcp-stdio-explicit" } });
    expect(traces.isError).to.not.equal(true);
    expect(
      (traces.structuredContent as { traces: { trace_id: string }[] }).traces.map((t) => t.trace_id),
    ).to.deep.equal([hexId(1, 16)]);
    // The links name the collector the server resolved (here the --base-url given).
    expect((traces.structuredContent as { traces: { ui_url: string }[] }).traces[0]?.ui_url).to.equal(
      `${obsd.url}/ui/traces/${hexId(1, 16)}`,
    );
  });

  it("finds the collector of its working folder, as the query commands do", async () => {
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const project = join(dir.path, "project");
    mkdirSync(join(project, "src"), { recursive: true });
    const stateDir = join(dir.path, "state");
    const obsd = await startCollectorProcess({ stateDir, cwd: project, dbPath: join(dir.path, "t.sqlite") });
    cleanups.push(() => obsd.stop());
    await sendSpan(obsd, "mcp-stdio-discovered", 2);
    const client = await connect([], join(project, "src"), { OBS_STATE_DIR: stateDir });
    const result = await client.callTool({ name: "list_services", arguments: {} });
    expect(result.isError).to.not.equal(true);
    expect((result.structuredContent as { services: { name: string }[] }).services.map((s) => s.name)).to.deep.equal([
      "mcp-stdio-discovered",
    ]);
  });

  it("answers a tool error while no collector runs, and uses one started later", async () => {
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const project = join(dir.path, "project");
    mkdirSync(project, { recursive: true });
    const stateDir = join(dir.path, "state");
    const client = await connect([], project, { OBS_STATE_DIR: stateDir });

    const before = await client.callTool({ name: "list_services", arguments: {} });
    expect(before.isError).to.equal(true);
    expect(textOf(before)).to.include("no obs collector is running").and.include("obs monitor start");

    const obsd = await startCollectorProcess({ stateDir, cwd: project, dbPath: join(dir.path, "t.sqlite") });
    cleanups.push(() => obsd.stop());
    await sendSpan(obsd, "mcp-stdio-late", 3);
    const after = await client.callTool({ name: "list_services", arguments: {} });
    expect(after.isError).to.not.equal(true);
    expect((after.structuredContent as { services: { name: string }[] }).services.map((s) => s.name)).to.deep.equal([
      "mcp-stdio-late",
    ]);
  });

  it("answers every request it read, writes only MCP on stdout, and exits 0 when stdin closes", async () => {
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      // Port 1: nothing answers there, so the call is a tool error, not a crash.
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_services", arguments: {} } },
    ];
    const child = spawn(process.execPath, [packagePath("bin", "obs.js"), "mcp", "--port", "1"], {
      env: childEnv({}),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdin.end(requests.map((request) => `${JSON.stringify(request)}\n`).join(""));
    expect(await exited).to.equal(0);
    const lines = stdout.trim().split("\n");
    const messages = lines.map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> });
    expect(messages.map((message) => message.id)).to.deep.equal([1, 2]);
    expect(messages[1]?.result.isError).to.equal(true);
    expect(textOf(messages[1]?.result)).to.include("http://127.0.0.1:1");
  });

  it("says to fix its own setting when OBS_MONITOR_URL names no collector, not to check a store", async () => {
    const client = await connect([], process.cwd(), { OBS_MONITOR_URL: "garbage" });
    const result = await client.callTool({ name: "list_services", arguments: {} });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.include("OBS_MONITOR_URL=garbage");
    expect(textOf(result)).to.include("restart").and.not.include("store");
    // A state folder it cannot trust is its own setting too, not an internal failure.
    const relative = await connect([], process.cwd(), { OBS_STATE_DIR: "relative-state" });
    const refused = await relative.callTool({ name: "list_services", arguments: {} });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.include("OBS_STATE_DIR").and.include("restart").and.not.include("failed:");
  });

  it("reports its usage errors on stderr only, --json included: stdout carries MCP alone", async () => {
    for (const args of [
      ["mcp", "--json"],
      ["mcp", "--bogus"],
      ["mcp", "--json", "--port", "abc"],
    ]) {
      const run = await runObs(args);
      expect(run.code, args.join(" ")).to.equal(2);
      expect(run.stdout, args.join(" ")).to.equal("");
      expect(run.stderr, args.join(" ")).to.match(/^obs: mcp: .*; see obs mcp --help\n$/);
    }
  });

  it("describes its flags in --help, completes, and refuses a bad port as a usage error", async () => {
    const help = await runObs(["mcp", "--help"]);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^obs mcp\b/m);
    for (const flag of ["--base-url", "--host", "--port"]) {
      expect(help.stdout, flag).to.match(new RegExp(`^\\s+(-\\w, )?${flag}\\s+[A-Z]`, "m"));
    }
    expect(help.stdout).not.to.include("--json");
    const completions = await runObs(["--get-yargs-completions", "obs", "mc"]);
    expect(completions.stdout.split("\n")).to.include("mcp");
    const badPort = await runObs(["mcp", "--port", "abc"]);
    expect(badPort.code).to.equal(2);
    expect(badPort.stderr).to.include("use a port number from 1 to 65535");
  });
});
