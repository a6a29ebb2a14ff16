import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { runObs } from "../helpers/obs-cli.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

const validateDocument = cliDocumentValidator();

describe("obs failures: messages, stack traces and documents", function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = tempDir();
    // A state folder that cannot be created: a file stands where its parent should be.
    writeFileSync(join(dir.path, "file"), "");
    env = { OBS_STATE_DIR: join(dir.path, "file", "state") };
  });
  afterEach(() => dir.cleanup());

  it("prints one line, and a stack trace only when OBS_DEBUG is set", async () => {
    const plain = await runObs(["monitor", "start", "--detach", "--port", "0"], { env });
    expect(plain.code).to.equal(4);
    expect(plain.stderr.trim().split("\n")).to.have.length(1);
    expect(plain.stderr).to.match(/^obs: ENOTDIR/);
    const debug = await runObs(["monitor", "start", "--detach", "--port", "0"], { env: { ...env, OBS_DEBUG: "1" } });
    expect(debug.code).to.equal(4);
    expect(debug.stderr).to.match(/\n\s+at /);
  });

  it("writes the failure as one document with --json, and nothing else", async () => {
    const result = await runObs(["monitor", "start", "--detach", "--port", "0", "--json"], { env });
    expect(result.code).to.equal(4);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(document.error.code).to.equal("internal");
    expect(document.data).to.equal(null);
    expect(result.stderr).to.equal("");
  });
});

describe("obs argument errors: one document with --json, one line without", function () {
  this.timeout(60_000);

  it("writes one obs.cli/v1 error document on stdout for an unknown flag with --json", async () => {
    for (const [args, command] of [
      [["traces", "--bogus", "--json"], "traces"],
      [["monitor", "stop", "--bogus", "--json"], "monitor stop"],
      [["trace", "--json"], "trace"],
      [["traces", "--port", "70000", "--json"], "traces"],
      [["bogus", "--json"], "obs"],
    ] as const) {
      const result = await runObs([...args]);
      expect(result.code, args.join(" ")).to.equal(2);
      const document = JSON.parse(result.stdout);
      expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
      expect(document.command).to.equal(command);
      expect(document.error.code).to.equal("invalid_argument");
      expect(result.stderr).to.equal("");
    }
    const flag = JSON.parse((await runObs(["traces", "--bogus", "--json"])).stdout);
    expect(flag.error.message).to.equal("unknown option --bogus");
    expect(flag.error.details).to.deep.equal({ help: "obs traces --help" });
  });

  it("prints one line naming the unknown flag or command and the --help to run, not the whole help", async () => {
    const flag = await runObs(["traces", "--bogus"]);
    expect(flag.code).to.equal(2);
    expect(flag.stdout).to.equal("");
    expect(flag.stderr).to.equal("obs: traces: unknown option --bogus; see obs traces --help\n");
    const command = await runObs(["bogus"]);
    expect(command.code).to.equal(2);
    expect(command.stderr).to.equal("obs: unknown argument bogus; see obs --help\n");
    const missing = await runObs(["monitor", "stop", "--bogus"]);
    expect(missing.stderr).to.equal("obs: monitor stop: unknown option --bogus; see obs monitor stop --help\n");
  });
});
