import { expect } from "chai";
import { commandPathOf, usageMessage, wantsJson } from "../../../client/cli/usage-errors.js";

const COMMANDS = new Set(["traces", "monitor", "setup", "skills"]);

describe("argument errors: which command, which words, which output", () => {
  it("finds the command the arguments name, subcommands included", () => {
    expect(commandPathOf(["traces", "--bogus"], COMMANDS)).to.deep.equal(["traces"]);
    expect(commandPathOf(["monitor", "stop", "--bogus"], COMMANDS)).to.deep.equal(["monitor", "stop"]);
    expect(commandPathOf(["monitor", "--bogus"], COMMANDS)).to.deep.equal(["monitor"]);
    expect(commandPathOf(["bogus"], COMMANDS)).to.deep.equal([]);
    expect(commandPathOf(["--", "traces"], COMMANDS)).to.deep.equal([]);
  });

  it("names unknown options as they were typed", () => {
    expect(usageMessage("Unknown argument: bogus", ["traces", "--bogus"])).to.equal("unknown option --bogus");
    expect(usageMessage("Unknown arguments: x, bogus", ["traces", "-x", "--bogus=1"])).to.equal(
      "unknown options -x, --bogus",
    );
    expect(usageMessage("Unknown argument: bogus", ["bogus"])).to.equal("unknown argument bogus");
    expect(usageMessage("Not enough non-option arguments", ["trace"])).to.equal("Not enough non-option arguments");
  });

  it("asks for a document only with --json before --", () => {
    expect(wantsJson(["traces", "--json"])).to.equal(true);
    expect(wantsJson(["traces", "--json=true"])).to.equal(true);
    expect(wantsJson(["traces", "--json", "--no-json"])).to.equal(false);
    expect(wantsJson(["agentcli", "--", "--json"])).to.equal(false);
  });
});
