import { readFileSync } from "node:fs";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
import { cliDocumentValidator, compileSchema } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

const validateDocument = cliDocumentValidator();
const validateSetup = compileSchema(
  JSON.parse(readFileSync(packagePath("schemas", "setup", "setup.json"), "utf8")) as object,
);

/**
 * Argument mistakes that obs refuses before it looks for a collector: exit 2, one line on
 * stderr naming the mistake and the --help to run (or one error document with --json). No
 * collector runs here, so a command that got past its argument checks would exit 3 instead.
 */
describe("obs refuses arguments it cannot use, before any request", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = tempDir();
    env = { OBS_STATE_DIR: dir.path, OBS_MONITOR_URL: "" };
  });
  afterEach(() => dir.cleanup());

  const obs = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runObs(args, { env: { ...env, ...extraEnv } });

  /** Exit 2 and exactly one stderr line, `obs: COMMAND: ...; see obs COMMAND --help`. */
  function expectUsageLine(result: CliResult, command: string, args: string[]): string {
    const what = args.join(" ");
    expect(result.code, `${what}: ${result.stderr}`).to.equal(2);
    expect(result.stdout, what).to.equal("");
    expect(result.stderr, what).to.match(new RegExp(`^obs: ${command}: [^\\n]+; see obs ${command} --help\\n$`));
    return result.stderr;
  }

  it("refuses a --base-url that is not a collector's http(s) URL", async () => {
    for (const [args, command] of [
      [["traces", "--base-url", "notaurl"], "traces"],
      [["traces", "--base-url", "ftp://127.0.0.1:27686"], "traces"],
      [["services", "--base-url", "localhost:27686"], "services"],
      [["status", "--base-url", "http://"], "status"],
      [["traces", "--base-url", "http://127.0.0.1:27686/api"], "traces"],
      // An empty query or fragment: the URL holds none, but a link built on the text would.
      [["open", "--print", "--base-url", "http://127.0.0.1:27686?"], "open"],
      [["traces", "--base-url", "http://127.0.0.1:27686/#"], "traces"],
      [["monitor", "status", "--base-url", "notaurl"], "monitor status"],
      [["monitor", "stop", "--base-url", "notaurl"], "monitor stop"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr).to.include(`--base-url ${args.at(-1)}: `);
    }
    const document = await obs(["traces", "--base-url", "notaurl", "--json"]);
    expect(document.code).to.equal(2);
    const parsed = JSON.parse(document.stdout);
    expect(validateDocument(parsed), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(parsed.error.code).to.equal("invalid_argument");
    expect(parsed.error.message).to.match(/^--base-url notaurl: not a URL/);
  });

  it("refuses an OBS_MONITOR_URL that is not a collector's URL as a configuration error", async () => {
    for (const args of [["traces"], ["monitor", "status"]]) {
      const result = await obs([...args, "--json"], { OBS_MONITOR_URL: "notaurl" });
      expect(result.code, `${args.join(" ")}: ${result.stdout}`).to.equal(2);
      const document = JSON.parse(result.stdout);
      expect(document.error.code).to.equal("invalid_config");
      expect(document.error.message).to.match(/^OBS_MONITOR_URL=notaurl: not a URL/);
    }
    const bareQuery = await obs(["open", "--print", "--json"], { OBS_MONITOR_URL: "http://127.0.0.1:27686?" });
    expect(bareQuery.code, bareQuery.stdout).to.equal(2);
    expect(JSON.parse(bareQuery.stdout).error.code).to.equal("invalid_config");
  });

  it("refuses a --host or OBS_MONITOR_HOST that is no host, and takes an IPv6 address in brackets", async () => {
    for (const [args, command] of [
      [["services", "--host", "127.0.0.1:25905", "--port", "2"], "services"],
      [["traces", "--host", ""], "traces"],
      [["status", "--host", "local host"], "status"],
      [["monitor", "status", "--host", "local host"], "monitor status"],
      [["monitor", "stop", "--host", "127.0.0.1:25905"], "monitor stop"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr, args.join(" ")).to.include(`--host ${JSON.stringify(args[args.indexOf("--host") + 1])}: `);
    }
    const fromEnv = await obs(["services", "--port", "2", "--json"], { OBS_MONITOR_HOST: "[::1" });
    expect(fromEnv.code).to.equal(2);
    expect(JSON.parse(fromEnv.stdout).error).to.include({ code: "invalid_config" });
    expect(JSON.parse(fromEnv.stdout).error.message).to.match(/^OBS_MONITOR_HOST="\[::1": /);
    // No collector runs: a host that is one gets as far as looking for it (exit 3), at its address.
    for (const [args, extraEnv] of [
      [["services", "--host", "[::1]", "--port", "2"], {}],
      [["monitor", "status", "--host", "[::1]", "--port", "2"], {}],
      [["monitor", "status", "--port", "2"], { OBS_MONITOR_HOST: "[::1]" }],
    ] as const) {
      const result = await obs([...args], extraEnv);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(3);
      expect(result.stderr, args.join(" ")).to.include("http://[::1]:2");
    }
  });

  it("refuses --base-url together with --host or --port, which name the collector too", async () => {
    for (const [args, command, other] of [
      [["traces", "--base-url", "http://127.0.0.1:1", "--port", "2"], "traces", "--port"],
      [["traces", "-p", "2", "--base-url", "http://127.0.0.1:1"], "traces", "--port"],
      [["status", "--base-url", "http://127.0.0.1:1", "--host", "127.0.0.1"], "status", "--host"],
      [["monitor", "stop", "--base-url", "http://127.0.0.1:1", "--monitor-port", "2"], "monitor stop", "--port"],
      [["monitor", "status", "--base-url", "http://127.0.0.1:1", "--port", "2"], "monitor status", "--port"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr).to.include(`--base-url and ${other} both name the collector`);
    }
  });

  it("refuses a port no collector can listen on, on the fast path of monitor status as on the full parser", async () => {
    for (const [args, command] of [
      [["monitor", "status", "--port", "99999"], "monitor status"],
      [["monitor", "status", "--port", "0"], "monitor status"],
      [["monitor", "stop", "--port", "0"], "monitor stop"],
      [["traces", "--port", "0"], "traces"],
      [["traces", "--port", "99999"], "traces"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr).to.include(`--port ${args.at(-1)}: use a port number from 1 to 65535`);
    }
    for (const args of [
      ["traces", "--port"],
      ["setup", "agentcli", "--port"],
    ]) {
      const stderr = expectUsageLine(await obs(args), args.slice(0, -1).join(" "), args);
      expect(stderr).to.include("--port needs a value: a port number from 1 to 65535");
    }
    // A collector flag with no value is refused, not replaced by the environment's or the default.
    const start = await obs(["monitor", "start", "--detach", "--db"]);
    expect(start.code).to.equal(2);
    expect(start.stderr).to.equal("obs: --db needs a value\n");
    const document = await obs(["monitor", "status", "--json", "-p", "70000"]);
    expect(document.code).to.equal(2);
    expect(JSON.parse(document.stdout).error.message).to.equal("--port 70000: use a port number from 1 to 65535");
  });

  it("refuses a single-value flag given twice, and --no- where it turns nothing off", async () => {
    for (const [args, command, message] of [
      [["traces", "--since", "1h", "--since", "2h"], "traces", "--since is given more than once: give it once"],
      [["traces", "--service", "a", "--service", "b"], "traces", "--service is given more than once"],
      [["logs", "--limit", "5", "--limit", "6"], "logs", "--limit is given more than once"],
      [["monitor", "status", "--port", "1", "--port", "2"], "monitor status", "--port is given more than once"],
      [["monitor", "status", "--host", "a", "--monitor-host", "b"], "monitor status", "--host is given more than once"],
      [["traces", "--no-json"], "traces", "--no-json turns nothing off"],
      [["traces", "--json=1"], "traces", "--json=1: --json is a switch"],
      [["traces", "--json=yes"], "traces", "--json=yes: --json is a switch"],
      [["test", "--headed=yes"], "test", "--headed=yes: --headed is a switch"],
      [["monitor", "status", "--no-json"], "monitor status", "--no-json turns nothing off"],
      [["metric", "http.requests", "--no-describe"], "metric", "--no-describe turns nothing off"],
      [["traces", "--no-since"], "traces", "--no-since: --since takes a value"],
      [["traces", "--no-duration-min"], "traces", "--no-duration-min: --duration-min takes a value"],
      [["logs", "--no-service"], "logs", "--no-service: --service takes a value"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr, args.join(" ")).to.include(message);
    }
    const document = await obs(["monitor", "status", "--json", "--json"]);
    expect(document.code).to.equal(2);
    expect(JSON.parse(document.stdout).error.message).to.equal("--json is given more than once: give it once");
  });

  it("lets the flags and arguments the spec makes repeatable repeat", async () => {
    // No collector runs: getting past the argument checks is exit 3.
    for (const args of [
      ["metric", "m", "--group-by", "service", "--group-by", "attr.host.name"],
      ["traces", "attr.a=1", "attr.b=2"],
      ["spans", "attr.a=1", "attrContains.b=x"],
      ["trace", "0123456789abcdef0123456789abcdef", "--include", "spans", "--include", "logs"],
    ]) {
      const result = await obs(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(3);
    }
  });

  it("says what a value must be in one line, not yargs' list of invalid values", async () => {
    for (const [args, command, message] of [
      [["traces", "--status", "bogus"], "traces", '--status "bogus": use one of ok, error'],
      [["audit", "--fail-on=x"], "audit", '--fail-on "x": use one of never, error, regression'],
      [["trace-stats", "service", "bogus"], "trace-stats", 'agg "bogus": use one of count, avg_duration'],
      [["facets", "spans", "service"], "facets", 'type "spans": use one of traces, logs, metrics'],
      [["monitor", "start", "--forward-protocol", "x"], "monitor start", '--forward-protocol "x": use one of'],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr, args.join(" ")).to.include(`: ${message}`);
    }
    const document = await obs(["traces", "--status", "bogus", "--json"]);
    expect(JSON.parse(document.stdout).error.message).to.equal('--status "bogus": use one of ok, error');
  });

  it("obs monitor start: takes a value starting with a minus sign as the flag's value, to say why it is invalid", async () => {
    const result = await obs(["monitor", "start", "--port", "0", "--retention", "-1d"]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/invalid duration "-1d"/);
  });

  it("writes the obs.setup/v1 error document for an argument error of obs setup --json", async () => {
    for (const [args, message] of [
      [["setup", "agentcli", "--json", "--port", "99999"], "--port 99999: use a port number from 1 to 65535"],
      [["setup", "agentcli", "--json", "--bogus"], "unknown option --bogus"],
      [["setup", "agentcli", "--json", "--protocol", "x"], '--protocol "x": use one of grpc, http'],
      [["setup", "--json"], null],
      [["setup", "bogus", "--json"], "unknown command bogus (commands: agentcli)"],
    ] as const) {
      const result = await obs([...args]);
      expect(result.code, args.join(" ")).to.equal(2);
      expect(result.stderr, args.join(" ")).to.equal("");
      const document = JSON.parse(result.stdout);
      expect(validateSetup(document), `${args.join(" ")}: ${JSON.stringify(validateSetup.errors)}`).to.equal(true);
      expect(document.schema_version).to.equal("obs.setup/v1");
      expect(document.error.code).to.equal("invalid_argument");
      if (message) expect(document.error.message, args.join(" ")).to.equal(message);
      expect(document.error.details.help).to.match(/^obs setup( agentcli)? --help$/);
    }
  });

  it("obs facets: --key is required by attribute_values and refused by every other field", async () => {
    for (const [args, message] of [
      [["facets", "traces", "attribute_values"], "attribute_values needs --key ATTRIBUTE"],
      [["facets", "metrics", "attribute_values", "--key", ""], "attribute_values needs --key ATTRIBUTE"],
      [["facets", "traces", "service", "--key", "http.route"], "--key applies to attribute_values only"],
      [["facets", "logs", "severity", "--key", "x"], "--key applies to attribute_values only"],
      [["facets", "logs", "attribute_values", "--key", "x"], 'field "attribute_values" of logs: use one of'],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), "facets", [...args]);
      expect(stderr, args.join(" ")).to.include(message);
    }
    // Past the argument checks, with no collector running: exit 3.
    for (const args of [
      ["facets", "traces", "attribute_values", "--key", "http.route"],
      ["facets", "metrics", "attribute_values", "--key", "host.name"],
      ["facets", "traces", "attribute_keys"],
    ]) {
      const result = await obs(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(3);
    }
  });

  it("reads the words after -- as the command's arguments, refused as they would be without --", async () => {
    for (const [args, command, message] of [
      [["services", "--", "extra"], "services", "unknown argument extra"],
      [["spans", "--service", "pager", "--", "bogus"], "spans", 'unexpected argument "bogus"'],
      [["traces", "--", "--cursor", "X"], "traces", "--cursor after --"],
      [["traces", "--service", "--", "attr.a=b"], "traces", "--service needs a value"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr, args.join(" ")).to.include(message);
    }
    // No collector runs: getting past the argument checks is exit 3.
    const filtered = await obs(["traces", "--", "attr.http.route=/cart"]);
    expect(filtered.code, filtered.stderr).to.equal(3);
  });

  it("refuses a huge duration as over the 24h maximum, not as an invalid or zero one", async () => {
    for (const [args, command, flag] of [
      [["traces", "--since", "1000000000d"], "traces", "--since"],
      [["logs", "--since", "99999999999999999999w"], "logs", "--since"],
      [["audit", "--baseline", "1000000000d"], "audit", "--baseline"],
      [["trace-logs", "0123456789abcdef0123456789abcdef", "--since", "1000000000d"], "trace-logs", "--since"],
    ] as const) {
      const stderr = expectUsageLine(await obs([...args]), command, [...args]);
      expect(stderr, args.join(" ")).to.include(`: ${flag} ${args.at(-1)} is over the maximum of 24h;`);
    }
  });
});
