import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { runCollectorToExit } from "../helpers/collector-process.js";
import { type CliResult, runObs } from "../helpers/obs-cli.js";
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
    // An unexpected failure: the collector's log folder is a file (EEXIST making it).
    mkdirSync(join(dir.path, "state", "monitor"), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir.path, "state", "monitor", "logs"), "");
    env = { OBS_STATE_DIR: join(dir.path, "state") };
  });
  afterEach(() => dir.cleanup());

  it("prints one line, and a stack trace only when OBS_DEBUG is set", async () => {
    const plain = await runObs(["monitor", "start", "--detach", "--port", "0"], { env });
    expect(plain.code).to.equal(4);
    expect(plain.stderr.trim().split("\n")).to.have.length(1);
    expect(plain.stderr).to.match(/^obs: EEXIST/);
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

/** Runs obs in a folder removed after the shell went into it (a process cannot be started in one). */
function runObsInRemovedFolder(parent: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const script = 'mkdir gone && cd gone && rmdir ../gone && exec "$0" "$@"';
  return new Promise((resolve) => {
    execFile(
      "sh",
      ["-c", script, process.execPath, packagePath("bin", "obs.js"), ...args],
      { cwd: parent, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe("obs configuration errors", function () {
  this.timeout(60_000);

  it("a current folder that was removed is a configuration error (exit 2), one document with --json", async () => {
    const dir = tempDir();
    try {
      const env = { OBS_STATE_DIR: join(dir.path, "state") };
      for (const args of [
        ["status", "--json"],
        ["monitor", "status", "--json"],
        ["traces", "--json"],
      ]) {
        const result = await runObsInRemovedFolder(dir.path, args, env);
        expect(result.code, `${args.join(" ")}: ${result.stdout}${result.stderr}`).to.equal(2);
        expect(result.stderr, args.join(" ")).to.equal("");
        const document = JSON.parse(result.stdout);
        expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
        expect(document.command).to.equal(args.slice(0, -1).join(" "));
        expect(document.error.code).to.equal("invalid_config");
        expect(document.error.message).to.match(/the current folder no longer exists/);
      }
      const human = await runObsInRemovedFolder(dir.path, ["status"], env);
      expect(human.code).to.equal(2);
      expect(human.stdout).to.equal("");
      expect(human.stderr.trim().split("\n")).to.have.length(1);
      expect(human.stderr).to.match(/^obs: the current folder no longer exists .*; cd to a folder that exists/);
    } finally {
      dir.cleanup();
    }
  });

  it("a relative OBS_STATE_DIR is refused (exit 2) by every command, and nothing is made", async () => {
    const dir = tempDir();
    try {
      const env = { OBS_STATE_DIR: "relstate" };
      for (const args of [
        ["monitor", "start", "--detach", "--port", "0", "--json"],
        ["status", "--json"],
        ["monitor", "status", "--json"],
        ["monitor", "stop", "--json"],
      ]) {
        const result = await runObs(args, { env, cwd: dir.path });
        expect(result.code, `${args.join(" ")}: ${result.stdout}${result.stderr}`).to.equal(2);
        const document = JSON.parse(result.stdout);
        expect(document.error.code).to.equal("invalid_config");
        expect(document.error.message).to.include("OBS_STATE_DIR=relstate is a relative path");
      }
      const obsd = await runCollectorToExit(["--port", "0"], env, dir.path);
      expect(obsd.code, obsd.output).to.equal(2);
      expect(obsd.output).to.include("OBS_STATE_DIR=relstate is a relative path");
      expect(readdirSync(dir.path)).to.deep.equal([]);
    } finally {
      dir.cleanup();
    }
  });

  it("a state folder that cannot be made is a configuration error (exit 2), not a failure of obs", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "file"), "");
      const state = join(dir.path, "file", "state");
      const result = await runObs(["monitor", "start", "--detach", "--port", "0", "--json"], {
        env: { OBS_STATE_DIR: state },
      });
      expect(result.code, result.stderr).to.equal(2);
      const document = JSON.parse(result.stdout);
      expect(document.error.code).to.equal("invalid_config");
      expect(document.error.message).to.match(new RegExp(`^cannot make the state folder ${state}: ENOTDIR`));
    } finally {
      dir.cleanup();
    }
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
    const command = await runObs(["xyzzyplugh"]);
    expect(command.code).to.equal(2);
    expect(command.stderr).to.equal("obs: unknown command xyzzyplugh; see obs --help\n");
    const missing = await runObs(["monitor", "stop", "--bogus"]);
    expect(missing.stderr).to.equal("obs: monitor stop: unknown option --bogus; see obs monitor stop --help\n");
  });

  it("names a mistyped command, not the valid flags after it, and the --help of the deepest command that exists", async () => {
    const typo = await runObs(["tracs", "--since", "1h"]);
    expect(typo.code).to.equal(2);
    expect(typo.stdout).to.equal("");
    expect(typo.stderr).to.equal("obs: unknown command tracs (did you mean traces?); see obs --help\n");
    const action = await runObs(["monitor", "bogus"]);
    expect(action.code).to.equal(2);
    expect(action.stderr).to.equal(
      "obs: monitor: unknown command bogus (commands: start, stop, status); see obs monitor --help\n",
    );
    const typoAction = await runObs(["monitor", "stpo"]);
    expect(typoAction.stderr).to.equal(
      "obs: monitor: unknown command stpo (did you mean stop?); see obs monitor --help\n",
    );
    const extra = await runObs(["traces", "extra-positional"]);
    expect(extra.code).to.equal(2);
    expect(extra.stderr).to.equal(
      'obs: traces: unexpected argument "extra-positional": filters look like attr.KEY=VALUE; see obs traces --help\n',
    );
  });

  it("with --json, the same mistakes give exactly one error document on stdout and exit 2", async () => {
    for (const [args, command, message, help] of [
      [["tracs", "--since", "1h"], "obs", "unknown command tracs (did you mean traces?)", "obs --help"],
      [["monitor", "bogus"], "monitor", "unknown command bogus (commands: start, stop, status)", "obs monitor --help"],
      [
        ["traces", "extra-positional"],
        "traces",
        'unexpected argument "extra-positional": filters look like attr.KEY=VALUE',
        "obs traces --help",
      ],
    ] as const) {
      const result = await runObs([...args, "--json"]);
      expect(result.code, args.join(" ")).to.equal(2);
      expect(result.stderr).to.equal("");
      const document = JSON.parse(result.stdout);
      expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
      expect(document.command).to.equal(command);
      expect(document.error).to.deep.equal({ code: "invalid_argument", message, details: { help } });
    }
  });
});
