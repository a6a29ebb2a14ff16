import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createSocketServer } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { runningCollectors } from "../../client/discovery/running-collectors.js";
import { packagePath } from "../../shared/package-root.js";
import { startCollectorProcess, startFailure } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const uid = process.getuid?.() ?? 0;
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the state folder and control sockets are this user's alone", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let tmp: string;
  /** A state path long enough that sockets move to obs-<uid> in the temp folder. */
  let longState: string;
  beforeEach(() => {
    dir = tempDir();
    tmp = join(dir.path, "tmp");
    mkdirSync(tmp);
    longState = join(dir.path, "a-state-folder-whose-path-is-too-long-for-a-unix-socket".repeat(2));
  });
  afterEach(async () => {
    for (const entry of await runningCollectors({ OBS_STATE_DIR: dir.path }))
      await runObs(["monitor", "stop", "--port", String(entry.port)], { env: { OBS_STATE_DIR: dir.path } });
    dir.cleanup();
  });

  it("obsd refuses a temp socket folder that other users can write in (mode 0777)", async () => {
    const socketDir = join(tmp, `obs-${uid}`);
    mkdirSync(socketDir);
    chmodSync(socketDir, 0o777);
    const error = await startFailure({ stateDir: longState, env: { TMPDIR: tmp } });
    expect(error?.message).to.match(/exited with 2/);
    expect(error?.message).to.include(`refusing the control socket folder ${socketDir}`);
    expect(error?.message).to.match(/mode 0777/);
  });

  it("obs and obsd refuse a temp folder too long for a socket path, and leave nothing behind", async () => {
    const longTmp = join(tmp, "t".repeat(120));
    mkdirSync(longTmp);
    const env = { OBS_STATE_DIR: longState, TMPDIR: longTmp };
    const leftovers = () => [
      ...readdirSync(longTmp, { recursive: true }).map(String),
      ...(existsSync(join(longState, "monitor"))
        ? readdirSync(join(longState, "monitor"), { recursive: true })
            .map(String)
            .filter((name) => !name.startsWith("logs") && name !== "run" && name !== "start.lock")
        : []),
    ];
    const obsd = await startFailure({ stateDir: longState, dbPath: "", env: { TMPDIR: longTmp } });
    expect(obsd?.message).to.match(/exited with 2/);
    expect(obsd?.message).to.include(`refusing the control socket folder ${join(longTmp, `obs-${uid}`)}`);
    expect(obsd?.message).to.include("longer than");
    expect(obsd?.message).not.to.match(/\n\s+at /);
    const foreground = await runObs(["monitor", "start", "--port", "0"], { env });
    expect(foreground.code, foreground.stderr).to.equal(2);
    expect(foreground.stderr.trim().split("\n"), foreground.stderr).to.have.length(1);
    expect(foreground.stderr).to.include("use a shorter OBS_STATE_DIR or TMPDIR");
    const detached = await runObs(["monitor", "start", "--detach", "--port", "0", "--json"], { env });
    expect(detached.code, detached.stdout).to.equal(2);
    expect(JSON.parse(detached.stdout).error.message).to.include("use a shorter OBS_STATE_DIR or TMPDIR");
    expect(leftovers()).to.deep.equal([]);
  });

  it("obsd refuses a temp socket folder that is a symbolic link, without following it", async () => {
    const elsewhere = join(dir.path, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(tmp, `obs-${uid}`));
    const error = await startFailure({ stateDir: longState, env: { TMPDIR: tmp } });
    expect(error?.message).to.match(/exited with 2/);
    expect(error?.message).to.match(/is a symbolic link/);
    expect(readdirSync(elsewhere)).to.deep.equal([]);
  });

  for (const planted of [".owner.json", "-wal", "-shm"]) {
    it(`obsd refuses a store whose ${planted} is a symbolic link someone planted, and writes nothing through it`, async () => {
      // As another user could in a folder they can write in: the link points at a file of ours.
      const target = join(dir.path, "victim.txt");
      writeFileSync(target, "mine\n");
      chmodSync(target, 0o644);
      const dbPath = join(tmp, "shared.sqlite");
      symlinkSync(target, `${dbPath}${planted}`);
      const error = await startFailure({ dbPath, stateDir: join(dir.path, "state") });
      expect(error?.message).to.match(/exited with 4/);
      expect(error?.message)
        .to.include(`${dbPath}${planted}`)
        .and.match(/is a symbolic link/);
      expect(readFileSync(target, "utf8")).to.equal("mine\n");
      expect(modeOf(target)).to.equal(0o644);
    });
  }

  it("obsd refuses a --db that is a link another user made, and writes nothing through it", async function () {
    // Making a link another user's takes root (lchown). Such a link in a shared folder (/tmp)
    // would choose which of this user's files obsd makes 0600, or where it writes telemetry.
    if (uid !== 0) this.skip();
    const victim = join(dir.path, "victim.txt");
    writeFileSync(victim, "mine\n");
    chmodSync(victim, 0o644);
    const nowhere = join(dir.path, "created-by-obsd.sqlite");
    for (const target of [victim, nowhere]) {
      const dbPath = join(tmp, "shared.sqlite");
      rmSync(dbPath, { force: true });
      symlinkSync(target, dbPath);
      lchownSync(dbPath, 65534, 65534);
      const error = await startFailure({ dbPath, stateDir: join(dir.path, "state") });
      expect(error?.message).to.match(/exited with 4/);
      expect(error?.message).to.include(`${dbPath} is a link that belongs to another user (uid 65534`);
    }
    expect([readFileSync(victim, "utf8"), modeOf(victim), existsSync(nowhere)]).to.deep.equal(["mine\n", 0o644, false]);
  });

  it("obsd refuses a --db whose own link leads through one another user made, or into their folder", async function () {
    if (uid !== 0) this.skip();
    const victim = join(dir.path, "victim.txt");
    writeFileSync(victim, "mine\n");
    chmodSync(victim, 0o644);
    // Ours -> theirs -> a file of ours: the link they made decides which file obsd opens.
    const planted = join(tmp, "shared.sqlite");
    symlinkSync(victim, planted);
    lchownSync(planted, 65534, 65534);
    const ours = join(dir.path, "ours.sqlite");
    symlinkSync(planted, ours);
    const chained = await startFailure({ dbPath: ours, stateDir: join(dir.path, "state") });
    expect(chained?.message).to.match(/exited with 4/);
    expect(chained?.message).to.include(`${planted} is a link that belongs to another user (uid 65534`);
    expect([readFileSync(victim, "utf8"), modeOf(victim)]).to.deep.equal(["mine\n", 0o644]);
    // Ours -> their folder, where the store's folder does not exist yet.
    const theirs = join(tmp, "theirs");
    mkdirSync(theirs);
    chmodSync(theirs, 0o777);
    chownSync(theirs, 65534, 65534);
    symlinkSync(theirs, join(dir.path, "into-theirs"));
    const inside = await startFailure({
      dbPath: join(dir.path, "into-theirs", "new", "telemetry.sqlite"),
      stateDir: join(dir.path, "state"),
    });
    expect(inside?.message).to.match(/exited with 4/);
    expect(inside?.message).to.include(`${theirs} belongs to another user (uid 65534`);
    expect(readdirSync(theirs)).to.deep.equal([]);
  });

  it("obsd refuses a store path that is a FIFO at once, instead of waiting on it for ever", async () => {
    const dbPath = join(tmp, "fifo.sqlite");
    execFileSync("mkfifo", [dbPath]);
    const error = await startFailure({ dbPath, stateDir: join(dir.path, "state") });
    expect(error?.message).to.match(/exited with 4/);
    expect(error?.message).to.include(`${dbPath} is not a plain file`);
  });

  it("obsd refuses a --db in a folder another user owns, creating nothing there", async function () {
    if (uid !== 0) this.skip();
    const theirs = join(tmp, "theirs");
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, 65534, 65534);
    const dbPath = join(theirs, "telemetry.sqlite");
    const error = await startFailure({ dbPath, stateDir: join(dir.path, "state") });
    expect(error?.message).to.match(/exited with 4/);
    expect(error?.message).to.include(`${theirs} belongs to another user (uid 65534`);
    expect(readdirSync(theirs)).to.deep.equal([]);
  });

  it("obs and obsd refuse a state folder inside a folder every user can write in, and write nothing through a link planted there", async () => {
    // What another user could do in such a folder: make the state folder's monitor/ a link to
    // a folder of ours, so that obs writes its logs and lock files over our files.
    const open = join(tmp, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const state = join(open, "obs");
    mkdirSync(state, { mode: 0o700 });
    const home = join(dir.path, "home");
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, ".profile"), "mine\n");
    symlinkSync(home, join(state, "monitor"));

    const started = await runObs(["monitor", "start", "--detach", "--port", "0", "--json"], {
      env: { OBS_STATE_DIR: state },
    });
    expect(started.code, started.stdout + started.stderr).to.equal(2);
    const error = JSON.parse(started.stdout).error;
    expect(error.code).to.equal("invalid_config");
    expect(error.message).to.include(`refusing the state folder ${state}: ${open} can be written by every user`);
    expect(readdirSync(home)).to.deep.equal([".profile"]);

    const obsd = await startFailure({ stateDir: state });
    expect(obsd?.message).to.match(/exited with 2/);
    expect(obsd?.message).to.include(`refusing the state folder ${state}`);
    expect(readdirSync(home)).to.deep.equal([".profile"]);
    expect(readFileSync(join(home, ".profile"), "utf8")).to.equal("mine\n");

    // With the sticky bit (as /tmp has), others cannot replace what is ours: accepted.
    chmodSync(open, 0o1777);
    rmSync(join(state, "monitor"));
    const accepted = await runObs(["monitor", "start", "--detach", "--port", "0", "--json"], {
      env: { OBS_STATE_DIR: state },
    });
    expect(accepted.code, accepted.stdout + accepted.stderr).to.equal(0);
    const stopped = await runObs(
      ["monitor", "stop", "--port", String(JSON.parse(accepted.stdout).data.collector.port)],
      {
        env: { OBS_STATE_DIR: state },
      },
    );
    expect(stopped.code, stopped.stderr).to.equal(0);
  });

  it("obs refuses a monitor/ folder that is a link, even in a state folder of its own", async () => {
    const state = join(dir.path, "state");
    mkdirSync(state, { mode: 0o700 });
    const elsewhere = join(dir.path, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(state, "monitor"));
    const result = await runObs(["monitor", "start", "--detach", "--port", "0"], { env: { OBS_STATE_DIR: state } });
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stderr).to.include(`${join(state, "monitor")} is a symbolic link`);
    expect(readdirSync(elsewhere)).to.deep.equal([]);
  });

  it("obs refuses a state folder that belongs to another user, and a saved collector read from one", async function () {
    // Making a folder another user's takes root; folderTrustProblem's unit tests cover the rule
    // for everyone else.
    if (uid !== 0) this.skip();
    const state = join(dir.path, "theirs");
    mkdirSync(join(state, "agentcli"), { recursive: true, mode: 0o700 });
    writeFileSync(join(state, "agentcli", "collector.json"), JSON.stringify({ url: "http://198.51.100.7:4318" }));
    chownSync(state, 65534, 65534);
    const started = await runObs(["monitor", "start", "--detach", "--port", "0"], { env: { OBS_STATE_DIR: state } });
    expect(started.code, started.stderr).to.equal(2);
    expect(started.stderr).to.include(
      `refusing the state folder ${state}: ${state} belongs to another user (uid 65534`,
    );
    const agentOnPath = `${packagePath("test", "fixtures", "agentcli")}:${process.env.PATH ?? ""}`;
    const launched = await runObs(["agentcli", "--", "--version"], {
      env: { OBS_STATE_DIR: state, PATH: agentOnPath },
    });
    expect(launched.code, launched.stderr).to.equal(2);
    expect(launched.stderr).to.include("belongs to another user");
  });

  /** A registry entry naming `socketPath`, for a collector that is gone (pid 999999). */
  const entryNaming = (id: string, socketPath: string) =>
    JSON.stringify({
      instanceId: id,
      pid: 999_999,
      cwd: "/",
      host: "127.0.0.1",
      port: 9,
      baseUrl: "http://127.0.0.1:9",
      dbPath: "/nowhere.sqlite",
      version: "0.1.0",
      startedAt: new Date().toISOString(),
      socketPath,
    });

  /** A file only this user may read or change, in a folder only this user may enter. */
  const preciousFile = () => {
    const vault = join(dir.path, "vault");
    mkdirSync(vault, { mode: 0o700 });
    const precious = join(vault, "precious");
    writeFileSync(precious, "mine\n", { mode: 0o600 });
    return precious;
  };

  const queriesAndLifecycle = [
    ["status", "--json"],
    ["monitor", "status", "--json"],
    ["monitor", "stop", "--json"],
    ["traces", "--json"],
  ];

  it("obs refuses a state folder another user owns for queries and lifecycle commands, and deletes nothing it names", async function () {
    if (uid !== 0) this.skip();
    const precious = preciousFile();
    const state = join(dir.path, "theirs");
    const run = join(state, "monitor", "run");
    mkdirSync(run, { recursive: true, mode: 0o755 });
    const id = "ab".repeat(16);
    writeFileSync(join(run, `${id}.json`), entryNaming(id, precious));
    for (const path of [state, join(state, "monitor"), run, join(run, `${id}.json`)]) chownSync(path, 65534, 65534);
    for (const args of queriesAndLifecycle) {
      const result = await runObs(args, { env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" } });
      expect(result.code, `${args.join(" ")}: ${result.stdout}`).to.equal(2);
      const error = JSON.parse(result.stdout).error;
      expect(error.code).to.equal("invalid_config");
      expect(error.message).to.include(`refusing the state folder ${state}: ${state} belongs to another user`);
      expect(existsSync(precious), args.join(" ")).to.equal(true);
    }
    expect(existsSync(join(run, `${id}.json`))).to.equal(true);
  });

  it("obs skips registry entries another user wrote, or links, in its own run folder, and removes only its own sockets", async function () {
    if (uid !== 0) this.skip();
    const precious = preciousFile();
    const state = join(dir.path, "state");
    const run = join(state, "monitor", "run");
    mkdirSync(run, { recursive: true, mode: 0o700 });
    chmodSync(run, 0o777);
    // Written by another user in the open run folder.
    const theirs = "ab".repeat(16);
    writeFileSync(join(run, `${theirs}.json`), entryNaming(theirs, precious));
    chownSync(join(run, `${theirs}.json`), 65534, 65534);
    // A link another user planted, to an entry of the same kind kept elsewhere.
    const linked = "cd".repeat(16);
    const elsewhere = join(dir.path, "elsewhere.json");
    writeFileSync(elsewhere, entryNaming(linked, precious));
    symlinkSync(elsewhere, join(run, `${linked}.json`));
    lchownSync(join(run, `${linked}.json`), 65534, 65534);
    for (const args of queriesAndLifecycle) {
      const result = await runObs(args, { env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" } });
      expect(result.code, `${args.join(" ")}: ${result.stdout}${result.stderr}`).to.equal(3);
      expect(existsSync(precious), args.join(" ")).to.equal(true);
    }
    // obs tightened its own folder, as a start does.
    expect(modeOf(run)).to.equal(0o700);

    // An entry of this user's own that names a file outside its socket folders: the entry of a
    // collector that is gone is removed, the file it names is not.
    const own = "ef".repeat(16);
    writeFileSync(join(run, `${own}.json`), entryNaming(own, precious), { mode: 0o600 });
    const result = await runObs(["status", "--json"], { env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" } });
    expect(result.code, result.stdout).to.equal(3);
    expect(existsSync(join(run, `${own}.json`))).to.equal(false);
    expect(readFileSync(precious, "utf8")).to.equal("mine\n");
    // A socket of its own, in its own run folder, left by a collector that is gone: removed.
    const stale = "12".repeat(16);
    const staleSocket = join(run, `${stale}.sock`);
    const server = createSocketServer();
    await new Promise<void>((resolve) => server.listen(staleSocket, resolve));
    // Closing unlinks a socket; a killed collector's stays. Keep the file, drop the listener.
    const kept = join(dir.path, "kept.sock");
    execFileSync("mv", [staleSocket, kept]);
    server.close();
    execFileSync("mv", [kept, staleSocket]);
    writeFileSync(join(run, `${stale}.json`), entryNaming(stale, staleSocket), { mode: 0o600 });
    const again = await runObs(["status", "--json"], { env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" } });
    expect(again.code, again.stdout).to.equal(3);
    expect([existsSync(join(run, `${stale}.json`)), existsSync(staleSocket)]).to.deep.equal([false, false]);
  });

  it("obsd makes its own temp socket folder 0700 and is found through it", async () => {
    const obsd = await startCollectorProcess({ stateDir: longState, env: { TMPDIR: tmp } });
    try {
      expect(modeOf(join(tmp, `obs-${uid}`))).to.equal(0o700);
      const found = await runningCollectors({ OBS_STATE_DIR: longState });
      expect(found.map((entry) => entry.port)).to.deep.equal([obsd.port]);
      expect(found[0]?.socketPath.startsWith(join(tmp, `obs-${uid}`))).to.equal(true);
    } finally {
      await obsd.stop();
    }
  });

  it("obsd makes its control socket again when a temp cleaner removes it, or its whole folder", async () => {
    const obsd = await startCollectorProcess({
      stateDir: longState,
      env: { TMPDIR: tmp },
      args: ["--control-socket-check", "200ms"],
    });
    const socketDir = join(tmp, `obs-${uid}`);
    const answering = async () => (await runningCollectors({ OBS_STATE_DIR: longState })).map((entry) => entry.port);
    const until = async (what: string, done: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`${what} within 10 s:\n${obsd.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      const [entry] = await runningCollectors({ OBS_STATE_DIR: longState });
      if (!entry) throw new Error("not on record");
      rmSync(entry.socketPath);
      await until("the socket made again", async () => (await answering()).includes(obsd.port));
      rmSync(socketDir, { recursive: true });
      await until("the folder and socket made again", async () => (await answering()).includes(obsd.port));
      expect(modeOf(socketDir)).to.equal(0o700);
      expect(modeOf(entry.socketPath)).to.equal(0o600);
      expect(obsd.output()).to.include(`obsd: the control socket ${entry.socketPath} was removed; made it again`);
      // A folder another user could have made in its place is refused, and said so once.
      rmSync(socketDir, { recursive: true });
      mkdirSync(socketDir, { mode: 0o777 });
      chmodSync(socketDir, 0o777);
      await until("the refusal", async () => obsd.output().includes("cannot be made again"));
      expect(readdirSync(socketDir)).to.deep.equal([]);
      expect(obsd.output()).to.include(`refusing the control socket folder ${socketDir}`);
    } finally {
      await obsd.stop();
    }
  });

  it("obs does not query a collector whose socket sits in a folder other users can write in", async () => {
    // What another user leaves behind: a registry entry in our state folder would be needed for
    // discovery, so this models the swap: our entry points into a world-writable folder, where
    // a socket answers for the collector with an address of the other user's choosing.
    const state = join(dir.path, "state");
    const runDir = join(state, "monitor", "run");
    mkdirSync(runDir, { recursive: true });
    const shared = join(tmp, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const requests: string[] = [];
    const fake: Server = createHttpServer((req, res) => {
      requests.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      res.end("{}");
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const port = (fake.address() as { port: number }).port;
    const id = "cd".repeat(16);
    const identity = {
      instanceId: id,
      pid: process.pid,
      cwd: dir.path,
      host: "127.0.0.1",
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      dbPath: join(state, "telemetry.sqlite"),
      version: "0.1.0",
      startedAt: new Date().toISOString(),
      socketPath: join(shared, `${id}.sock`),
    };
    const impostor = createSocketServer((socket) =>
      socket.once("data", () => socket.end(`${JSON.stringify({ ok: true, op: "identify", identity })}\n`)),
    );
    await new Promise<void>((resolve) => impostor.listen(identity.socketPath, resolve));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(runDir, `${id}.json`), JSON.stringify(identity));
    try {
      // The process the entry names (this one) runs: it is kept and named as not answering.
      const result = await runObs(["status", "--json"], { env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" } });
      expect(result.code, result.stdout).to.equal(5);
      expect(JSON.parse(result.stdout).error.message).to.include(`its control socket ${identity.socketPath} is gone`);
      expect(requests).to.deep.equal([]);
      // A stop without the socket signals only a process that answers at its address as itself.
      const stop = await runObs(["monitor", "stop", "--json"], {
        env: { OBS_STATE_DIR: state, OBS_MONITOR_URL: "" },
        cwd: dir.path,
      });
      expect(stop.code, stop.stdout).to.equal(3);
      expect(JSON.parse(stop.stdout).error.message).to.include("nothing was stopped");
    } finally {
      impostor.close();
      fake.close();
    }
  });

  it("stored telemetry, its -wal and -shm, the registry and the logs are 0600 under umask 000", async () => {
    const state = join(dir.path, "state");
    const previous = process.umask(0o000);
    // The child takes the umask when it is spawned, which happens before the first await.
    const starting = startCollectorProcess({
      stateDir: state,
      argv: [packagePath("bin", "obsd.js"), "--port", "0"],
    });
    process.umask(previous);
    const obsd = await starting;
    try {
      const response = await postJson(
        `${obsd.url}/v1/traces`,
        traceRequest("checkout", [
          {
            traceId: "1".repeat(32),
            spanId: "2".repeat(16),
            startNs: BigInt(Date.now()) * 1_000_000n,
            attributes: { password: "hunter2" },
          },
        ]),
      );
      expect(response.status).to.equal(200);
      const db = join(state, "monitor", "telemetry.sqlite");
      const entries = [state, ...readdirSync(state, { recursive: true }).map((name) => join(state, String(name)))];
      expect(entries).to.include.members([db, `${db}-wal`, `${db}-shm`, `${db}.owner.json`, `${db}.lock`]);
      for (const entry of entries)
        expect(modeOf(entry).toString(8), entry).to.equal(statSync(entry).isDirectory() ? "700" : "600");
    } finally {
      await obsd.stop();
    }

    const detachedUmask = process.umask(0o000);
    const startingDetached = runObs(["monitor", "start", "--detach", "--port", "0", "--json"], {
      env: { OBS_STATE_DIR: dir.path },
    });
    process.umask(detachedUmask);
    const detached = await startingDetached;
    expect(detached.code, detached.stderr).to.equal(0);
    const monitor = join(dir.path, "monitor");
    expect(readdirSync(join(monitor, "logs"))).to.have.length(1);
    const entries = [monitor, ...readdirSync(monitor, { recursive: true }).map((name) => join(monitor, String(name)))];
    expect(entries).to.include.members([join(monitor, "telemetry.sqlite"), join(monitor, "start.lock")]);
    for (const entry of entries)
      expect(modeOf(entry).toString(8), entry).to.equal(statSync(entry).isDirectory() ? "700" : "600");
  });
});
