import { expect } from "chai";
import {
  commandPathOf,
  type FlagDefinitions,
  flagUseProblem,
  unknownCommandMessage,
  usageMessage,
  wantsJson,
} from "../../../client/cli/usage-errors.js";

const COMMANDS = new Set(["traces", "monitor", "setup", "skills"]);

describe("argument errors: which command, which words, which output", () => {
  it("finds the command the arguments name, subcommands included", () => {
    expect(commandPathOf(["traces", "--bogus"], COMMANDS)).to.deep.equal(["traces"]);
    expect(commandPathOf(["monitor", "stop", "--bogus"], COMMANDS)).to.deep.equal(["monitor", "stop"]);
    expect(commandPathOf(["monitor", "--bogus"], COMMANDS)).to.deep.equal(["monitor"]);
    expect(commandPathOf(["bogus"], COMMANDS)).to.deep.equal([]);
    expect(commandPathOf(["--", "traces"], COMMANDS)).to.deep.equal([]);
  });

  it("stops at the deepest command that exists: an unknown action is not part of the path", () => {
    expect(commandPathOf(["monitor", "bogus"], COMMANDS)).to.deep.equal(["monitor"]);
    expect(commandPathOf(["setup", "bogus", "--json"], COMMANDS)).to.deep.equal(["setup"]);
    expect(commandPathOf(["skills", "view", "name"], COMMANDS)).to.deep.equal(["skills", "view"]);
  });

  it("names an unknown first word as the unknown command, with yargs' suggestion when it has one", () => {
    expect(unknownCommandMessage(["tracs", "--since", "1h"], COMMANDS, "Did you mean traces?")).to.equal(
      "unknown command tracs (did you mean traces?)",
    );
    expect(unknownCommandMessage(["zzz", "--since", "1h"], COMMANDS, "Unknown arguments: since, zzz")).to.equal(
      "unknown command zzz",
    );
    expect(unknownCommandMessage(["--json", "zzz"], COMMANDS, "Unknown argument: zzz")).to.equal("unknown command zzz");
    expect(unknownCommandMessage(["traces", "--bogus"], COMMANDS, "Unknown argument: bogus")).to.equal(null);
    expect(unknownCommandMessage(["--json"], COMMANDS, "name a command")).to.equal(null);
  });

  it("names an unknown word after a command group, with the suggestion or else the group's commands", () => {
    expect(unknownCommandMessage(["monitor", "stpo"], COMMANDS, "Did you mean stop?")).to.equal(
      "unknown command stpo (did you mean stop?)",
    );
    expect(unknownCommandMessage(["monitor", "bogus"], COMMANDS, "name an action: start, stop or status")).to.equal(
      "unknown command bogus (commands: start, stop, status)",
    );
    expect(unknownCommandMessage(["monitor", "stop", "extra"], COMMANDS, "Unknown argument: extra")).to.equal(null);
    expect(unknownCommandMessage(["monitor", "--json"], COMMANDS, "name an action")).to.equal(null);
    expect(unknownCommandMessage(["traces", "extra"], COMMANDS, "unexpected argument")).to.equal(null);
  });

  it("names unknown options as they were typed", () => {
    expect(usageMessage("Unknown argument: bogus", ["traces", "--bogus"])).to.equal("unknown option --bogus");
    expect(usageMessage("Unknown arguments: x, bogus", ["traces", "-x", "--bogus=1"])).to.equal(
      "unknown options -x, --bogus",
    );
    expect(usageMessage("Unknown argument: bogus", ["bogus"])).to.equal("unknown argument bogus");
    expect(usageMessage("Not enough non-option arguments", ["trace"])).to.equal("Not enough non-option arguments");
    // yargs lists a kebab-case flag with its camelCase alias: named once, as typed.
    expect(usageMessage("Unknown arguments: bogus-flag, bogusFlag", ["metric", "m", "--bogus-flag"])).to.equal(
      "unknown option --bogus-flag",
    );
  });

  it("says in one line which values a flag or argument takes", () => {
    const yargsMessage = 'Invalid values:\n  Argument: status, Given: "bogus", Choices: "ok", "error"';
    expect(usageMessage(yargsMessage, ["traces", "--status", "bogus"])).to.equal(
      '--status "bogus": use one of ok, error',
    );
    expect(usageMessage(yargsMessage.replace(/status/, "agg"), ["trace-stats", "service", "bogus"])).to.equal(
      'agg "bogus": use one of ok, error',
    );
    const two = `${yargsMessage}\n  Argument: reporter, Given: "x", Choices: "basic", "all"`;
    expect(usageMessage(two, ["test", "--status=bogus", "-r", "x"])).to.equal(
      '--status "bogus": use one of ok, error; reporter "x": use one of basic, all',
    );
  });

  it("says which flag needs the value it was given without", () => {
    expect(usageMessage("Not enough arguments following: since", ["metric", "m", "--since"])).to.equal(
      "--since needs a value",
    );
  });

  it("asks for a document only with --json before --", () => {
    expect(wantsJson(["traces", "--json"])).to.equal(true);
    expect(wantsJson(["traces", "--json=true"])).to.equal(true);
    expect(wantsJson(["traces", "--json", "--no-json"])).to.equal(false);
    expect(wantsJson(["agentcli", "--", "--json"])).to.equal(false);
  });
});

describe("flags given twice or negated", () => {
  /** A command's flags as yargs' getOptions() gives them. */
  const names = ["help", "version", "json", "since", "port", "p", "monitor-port", "stream", "headed", "group-by"];
  const FLAGS: FlagDefinitions = {
    key: Object.fromEntries([...names, "duration-min", "filters"].map((name) => [name, true])),
    alias: { port: ["monitor-port", "p"] },
    boolean: ["help", "version", "json", "stream", "headed"],
    array: ["group-by", "filters"],
    default: { json: false, stream: true },
  };
  const problem = (...args: string[]) => flagUseProblem(["traces", ...args], FLAGS);

  it("refuses a single-value flag given twice, under any of its names", () => {
    expect(problem("--since", "1h", "--since", "2h")).to.equal("--since is given more than once: give it once");
    expect(problem("--since=1h", "--since", "2h")).to.equal("--since is given more than once: give it once");
    expect(problem("-p", "1", "--port=2")).to.equal("--port is given more than once (as -p and --port): give it once");
    expect(problem("--monitor-port", "1", "-p2")).to.equal(
      "--port is given more than once (as --monitor-port and -p): give it once",
    );
    expect(problem("--durationMin", "5", "--duration-min", "6")).to.equal(
      "--duration-min is given more than once (as --durationMin and --duration-min): give it once",
    );
    expect(problem("--json", "--json")).to.equal("--json is given more than once: give it once");
    expect(problem("--stream", "--no-stream")).to.equal(
      "--stream is given more than once (as --stream and --no-stream): give it once",
    );
  });

  it("lets the flags that collect values repeat, and leaves unknown flags and values alone", () => {
    expect(problem("--group-by", "service", "--group-by", "attr.x")).to.equal(null);
    expect(problem("--since", "1h", "--bogus", "--bogus")).to.equal(null);
    expect(problem("--since", "1h", "-", "-5", "attr.a=1", "attr.b=2")).to.equal(null);
    expect(problem("--since", "1h", "--", "--since", "2h")).to.equal(null);
  });

  it("refuses --no- of a flag that takes a value or of a switch that is off by default", () => {
    expect(problem("--no-since")).to.equal(
      "--no-since: --since takes a value and has no --no- form; leave it out for its default",
    );
    expect(problem("--no-group-by")).to.match(/^--no-group-by: --group-by takes a value/);
    expect(problem("--no-json")).to.equal("--no-json turns nothing off (--json is off unless given); leave it out");
  });

  it("refuses a switch given a value other than true or false, which yargs would read as off", () => {
    expect(problem("--json=1")).to.equal("--json=1: --json is a switch, on or off; give --json alone (or --json=true)");
    expect(problem("--json=yes")).to.match(/^--json=yes: --json is a switch/);
    expect(problem("--stream=no")).to.match(/^--stream=no: --stream is a switch/);
    expect(problem("--json=")).to.match(/^--json=: --json is a switch/);
    expect(problem("--json=true")).to.equal(null);
    expect(problem("--json=false")).to.equal(null);
    expect(problem("--no-stream=false")).to.match(/^--no-stream=false: --stream is a switch/);
  });

  it("lets a switch that is on by default, or defaults from elsewhere, be turned off", () => {
    expect(problem("--no-stream")).to.equal(null);
    expect(problem("--no-headed")).to.equal(null);
  });
});
