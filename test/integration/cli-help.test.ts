import { expect } from "chai";
import { COMMAND_GROUPS } from "../../client/cli/usage-errors.js";
import { runObs } from "../helpers/obs-cli.js";

/** The browser-check flags of the spec's table that this release implements (runner telemetry comes later). */
const BROWSER_FLAGS = [
  "--config",
  "--report-dir",
  "--base-url",
  "--browser",
  "--headed",
  "--viewport",
  "--containerized",
  "--provider",
  "--model",
  "--api-key",
  "--max-steps",
  "--workers",
  "--reporter",
  "--verbose",
  "--progress-file",
  "--capture-screenshots",
  "--stream",
  "--frame-interval",
];

/** Each command and the flags the spec gives it; its --help must list and describe every one. */
const SPEC_FLAGS: Record<string, string[]> = {
  "monitor start": ["--host", "--port", "--db", "--detach", "--json"],
  "monitor stop": ["--json"],
  "monitor status": ["--json"],
  status: ["--json"],
  open: ["--print", "--json"],
  services: ["--since", "--json"],
  traces: ["--service", "--status", "--operation", "--since", "--duration-min", "--limit", "--cursor", "--json"],
  trace: ["--include", "--json"],
  "trace-logs": ["--since", "--limit", "--cursor", "--json"],
  spans: ["--service", "--trace-id", "--operation", "--parent-operation", "--status", "--since", "--limit", "--json"],
  span: ["--json"],
  "span-logs": ["--since", "--limit", "--cursor", "--json"],
  logs: ["--service", "--severity", "--trace-id", "--span-id", "--contains", "--since", "--limit", "--cursor"],
  "trace-stats": ["--since", "--service", "--json"],
  "log-stats": ["--since", "--json"],
  facets: ["--key", "--since", "--json"],
  metrics: ["--service", "--name", "--since", "--limit", "--cursor", "--json"],
  metric: ["--group-by", "--agg", "--step", "--since", "--service", "--limit", "--describe", "--json"],
  audit: ["--service", "--since", "--baseline", "--duration-min", "--fail-on", "--json"],
  "setup agentcli": ["--port", "--json"],
  test: BROWSER_FLAGS,
  run: BROWSER_FLAGS,
  watch: BROWSER_FLAGS,
  list: ["--config"],
  init: [],
  "skills list": [],
  "skills view": [],
  "skills check": [],
  "skills improve": ["--write"],
};

/** The commands that take positional arguments, and those arguments as --help names them. */
const POSITIONALS: Record<string, string[]> = {
  traces: ["filters"],
  trace: ["traceId"],
  "trace-logs": ["traceId"],
  spans: ["filters"],
  span: ["spanId"],
  "span-logs": ["spanId"],
  logs: ["filters"],
  "trace-stats": ["groupBy", "agg", "filters"],
  "log-stats": ["groupBy"],
  facets: ["type", "field"],
  metric: ["name", "filters"],
  open: ["traceId"],
  test: ["patterns"],
  list: ["patterns"],
  init: ["path"],
  "show-report": ["dir"],
  "skills view": ["name"],
  "skills improve": ["name"],
};

describe("obs --help and shell completion", function () {
  this.timeout(60_000);

  it("lists every command of the spec at the top level", async () => {
    const result = await runObs(["--help"]);
    expect(result.code).to.equal(0);
    // `obs agentcli --help` is the agent's own help, so agentcli is only checked here.
    for (const command of [...Object.keys(SPEC_FLAGS), "completion", "agentcli"]) {
      const first = command.split(" ")[0] as string;
      expect(result.stdout, command).to.match(new RegExp(`^ {2}obs ${first}\\b`, "m"));
    }
  });

  it("lists, for each command group, exactly the subcommands argument errors know of", async () => {
    for (const [group, subcommands] of COMMAND_GROUPS) {
      const result = await runObs([group, "--help"]);
      expect(result.code, group).to.equal(0);
      const listed = [...result.stdout.matchAll(new RegExp(`^ {2}obs ${group} ([a-z-]+)`, "gm"))].map((m) => m[1]);
      expect(listed, group).to.deep.equal([...subcommands]);
    }
  });

  it("describes every flag the spec gives each command", async () => {
    for (const [command, flags] of Object.entries(SPEC_FLAGS)) {
      const result = await runObs([...command.split(" "), "--help"]);
      expect(result.code, `${command} --help`).to.equal(0);
      expect(result.stdout, command).to.match(new RegExp(`^obs ${command}\\b`, "m"));
      for (const flag of flags) {
        // "  -p, --port   Description   [type]": a description, not only the type column.
        const line = result.stdout.split("\n").find((text) => new RegExp(`^\\s+(-\\w, )?${flag}\\b`).test(text));
        expect(line, `${command} ${flag}`).to.be.a("string");
        expect(line?.replace(/^\s+(-\w, )?--[\w-]+(, --[\w-]+)*\s+/, ""), `${command} ${flag}`).to.match(/^[A-Z]/);
      }
    }
  });

  it("lists and describes the positional arguments of every command that takes them", async () => {
    for (const [command, positionals] of Object.entries(POSITIONALS)) {
      const result = await runObs([...command.split(" "), "--help"]);
      expect(result.code, `${command} --help`).to.equal(0);
      const section = result.stdout.split(/^Positionals:$/m)[1]?.split(/^Options:$/m)[0] ?? "";
      for (const name of positionals) {
        // "  traceId  32 hex characters   [string] [required]": a description, not only the type.
        expect(section, `${command} ${name}`).to.match(new RegExp(`^ {2}${name} +[^[\\s]`, "m"));
      }
    }
  });

  it("prints a completion script that completes commands and flags", async () => {
    const script = await runObs(["completion"]);
    expect(script.code).to.equal(0);
    expect(script.stdout).to.include("complete -o bashdefault -o default -F _obs_yargs_completions obs");
    const actions = await runObs(["--get-yargs-completions", "obs", "monitor", ""]);
    expect(actions.stdout.split("\n").filter(Boolean)).to.deep.equal(["start", "stop", "status"]);
    const flags = await runObs(["--get-yargs-completions", "obs", "traces", "--"]);
    expect(flags.stdout.split("\n")).to.include.members(["--service", "--duration-min", "--cursor"]);
    const metricFlags = await runObs(["--get-yargs-completions", "obs", "metric", "m", "--"]);
    expect(metricFlags.stdout.split("\n")).to.include.members(["--group-by", "--agg", "--step", "--describe"]);
    const metricCommands = await runObs(["--get-yargs-completions", "obs", "metr"]);
    expect(metricCommands.stdout.split("\n").filter(Boolean)).to.include.members(["metrics", "metric"]);
    // A line being typed may repeat a flag: completing it says nothing on the terminal.
    const repeated = await runObs(["--get-yargs-completions", "obs", "traces", "--service", "a", "--service"]);
    expect([repeated.code, repeated.stderr]).to.deep.equal([0, ""]);
  });

  it("obs completion prints the script alone, and its --help or an argument error like any command", async () => {
    const help = await runObs(["completion", "--help"]);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^obs completion\n/);
    expect(help.stdout).not.to.include("_obs_yargs_completions");
    const json = await runObs(["completion", "--json"]);
    expect(json.code).to.equal(2);
    // One document on stdout, not the script before it.
    expect(JSON.parse(json.stdout).error.message).to.equal("unknown option --json");
    const shell = await runObs(["completion", "bash"]);
    expect(shell.code).to.equal(2);
    expect(shell.stdout).to.equal("");
    expect(shell.stderr).to.equal("obs: completion: unknown argument bash; see obs completion --help\n");
  });

  it("refuses a bad port before any request, as a usage error", async () => {
    for (const args of [
      ["monitor", "status", "--port", "abc"],
      ["traces", "--port", "70000"],
    ]) {
      const result = await runObs(args);
      expect(result.code, args.join(" ")).to.equal(2);
      expect(result.stderr).to.include("use a port number from 1 to 65535");
    }
  });
});
