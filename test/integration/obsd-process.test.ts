import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { runCollectorToExit, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

/**
 * Now, in nanoseconds, read when a test runs: the suite may start long before a test does, and
 * health counts a service only if it was seen in its last 15 minutes.
 */
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

describe("the obsd process", function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("prints the listening line, the web UI, an OTLP endpoint per signal, the query endpoint and the database path", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    try {
      const out = obsd.output();
      expect(out).to.match(new RegExp(`listening on ${obsd.url}\n  Web UI       ${obsd.url}/\n`));
      expect(out).to.include(`POST ${obsd.url}/v1/traces`);
      expect(out).to.include(`POST ${obsd.url}/v1/logs`);
      expect(out).to.include(`OTLP metrics POST ${obsd.url}/v1/metrics`);
      expect(out).to.include(`${obsd.url}/api/`);
      expect(out).to.include(obsd.dbPath);
      expect(obsd.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      expect(await obsd.stop("SIGINT")).to.equal(0);
    }
  });

  it("uses the platform state folder for its database by default", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path, dbPath: "" });
    try {
      expect(obsd.output()).to.include(join(dir.path, "monitor", "telemetry.sqlite"));
    } finally {
      await obsd.stop();
    }
  });

  it("keeps acknowledged data across SIGINT and restart", async () => {
    const dbPath = join(dir.path, "keep.sqlite");
    const first = await startCollectorProcess({ stateDir: dir.path, dbPath });
    const now = nowNs();
    const spans = Array.from({ length: 300 }, (_, i) => ({
      traceId: hexId(i % 30, 16),
      spanId: hexId(i, 8),
      startNs: now,
    }));
    expect((await postJson(`${first.url}/v1/traces`, traceRequest("persist", spans))).json()).to.deep.equal({
      accepted: 300,
    });
    expect(
      (await postJson(`${first.url}/v1/logs`, logsRequest("persist", [{ timeNs: now, body: "kept" }]))).status,
    ).to.equal(200);
    expect(await first.stop("SIGINT")).to.equal(0);
    expect(first.output()).to.match(/SIGINT received/);

    const second = await startCollectorProcess({ stateDir: dir.path, dbPath });
    try {
      const health = (await http(`${second.url}/api/health`)).json();
      expect(health.counts).to.deep.equal({
        services: 1,
        servicesLookback: "15m",
        traces: 30,
        spans: 300,
        logs: 1,
        series: 0,
        points: 0,
      });
      expect(health.instanceId).to.match(/^[0-9a-f]{32}$/);
    } finally {
      expect(await second.stop()).to.equal(0);
    }
  });

  it("reads host and port from the environment, and flags win over it", async () => {
    const fromEnv = await startCollectorProcess({ stateDir: dir.path, env: { OBS_MONITOR_HOST: "127.0.0.2" } });
    try {
      expect(fromEnv.url).to.match(/^http:\/\/127\.0\.0\.2:/);
    } finally {
      await fromEnv.stop();
    }
    const flagWins = await startCollectorProcess({
      stateDir: dir.path,
      args: ["--host", "127.0.0.3"],
      env: { OBS_MONITOR_HOST: "127.0.0.2" },
    });
    try {
      expect(flagWins.url).to.match(/^http:\/\/127\.0\.0\.3:/);
      expect(flagWins.output()).not.to.match(/warning/);
    } finally {
      await flagWins.stop();
    }
  });

  it("warns when bound beyond loopback", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path, args: ["--host", "0.0.0.0"] });
    try {
      expect(obsd.output()).to.match(/warning: listening on 0\.0\.0\.0.*no authentication/);
    } finally {
      await obsd.stop();
    }
  });

  it("exits 2 with a clear message on bad flags and settings", async () => {
    const badPort = await runCollectorToExit(["--port", "99999"], { OBS_STATE_DIR: dir.path });
    expect(badPort.code).to.equal(2);
    expect(badPort.output).to.match(/invalid port "99999"/);
    const badEnv = await runCollectorToExit(["--port", "0"], { OBS_STATE_DIR: dir.path, OBS_RETENTION: "soon" });
    expect(badEnv.code).to.equal(2);
    expect(badEnv.output).to.match(/OBS_RETENTION/);
    // One line naming the mistake and the --help to run, not the whole help before it.
    const unknown = await runCollectorToExit(["--bogus"], { OBS_STATE_DIR: dir.path });
    expect(unknown.code).to.equal(2);
    expect(unknown.output).to.equal("obsd: Unknown argument: bogus; see obsd --help\n");
    // A value starting with "-" and a digit, given as an argument of its own, is the flag's value.
    for (const args of [
      ["--port", "0", "--retention", "-1d"],
      ["--port", "0", "--max-db-size", "-1MiB"],
      ["-p", "-1x"],
    ]) {
      const negative = await runCollectorToExit(args, { OBS_STATE_DIR: dir.path });
      expect(negative.code, args.join(" ")).to.equal(2);
      expect(negative.output, args.join(" ")).to.match(new RegExp(`^obsd: invalid [a-z ]+ "${args.at(-1)}"`));
    }
    const choice = await runCollectorToExit(["--forward-protocol", "x"], { OBS_STATE_DIR: dir.path });
    expect(choice.code).to.equal(2);
    expect(choice.output).to.match(/^obsd: Invalid values: Argument: forward-protocol, [^\n]+; see obsd --help\n$/);
  });

  it("exits 2 naming the port when it is taken, leaving the other process alone", async () => {
    const other: Server = createServer((_req, res) => res.end("other"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as AddressInfo).port;
    try {
      const result = await runCollectorToExit(["--port", String(port)], { OBS_STATE_DIR: dir.path });
      expect(result.code).to.equal(2);
      expect(result.output).to.match(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect((await http(`http://127.0.0.1:${port}/`)).body.toString()).to.equal("other");
    } finally {
      other.close();
    }
  });

  it("refuses a database from a newer obs with exit 4 and leaves it untouched", async () => {
    const dbPath = join(dir.path, "newer.sqlite");
    const db = new Database(dbPath);
    db.pragma("user_version = 999");
    db.close();
    const result = await runCollectorToExit(["--port", "0", "--db", dbPath], { OBS_STATE_DIR: dir.path });
    expect(result.code).to.equal(4);
    expect(result.output).to.match(/schema version 999.*newer obs/);
    const check = new Database(dbPath);
    expect(check.pragma("user_version", { simple: true })).to.equal(999);
    check.close();
  });

  it("refuses another application's SQLite file with exit 4 and leaves it untouched", async () => {
    const files = join(dir.path, "app");
    mkdirSync(files);
    const dbPath = join(files, "notes.db");
    const db = new Database(dbPath);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('milk')");
    db.close();
    chmodSync(dbPath, 0o644);
    const before = readFileSync(dbPath);
    const result = await runCollectorToExit(["--port", "0", "--db", dbPath], { OBS_STATE_DIR: dir.path });
    expect(result.code, result.output).to.equal(4);
    expect(result.output).to.match(/obsd: cannot open the store: \S+notes\.db is not an obs store: /);
    expect(readFileSync(dbPath).equals(before)).to.equal(true);
    expect(statSync(dbPath).mode & 0o777).to.equal(0o644);
    expect(readdirSync(files)).to.deep.equal(["notes.db"]);
  });

  it("exits 2 with one line naming the store file to give when --db names a folder", async () => {
    const result = await runCollectorToExit(["--port", "0", "--db", dir.path], { OBS_STATE_DIR: dir.path });
    expect(result.code).to.equal(2);
    expect(result.output).to.include(
      `--db ${dir.path} names a folder; give the store's file, such as ${dir.path}/telemetry.sqlite`,
    );
  });

  it("finishes in-flight writes on SIGTERM before exiting", async () => {
    const dbPath = join(dir.path, "inflight.sqlite");
    const obsd = await startCollectorProcess({ stateDir: dir.path, dbPath });
    const spans = Array.from({ length: 512 }, (_, i) => ({
      traceId: hexId(i, 16),
      spanId: hexId(i, 8),
      startNs: nowNs(),
    }));
    const body = traceRequest("inflight", spans);
    const posts = Array.from({ length: 20 }, () => postJson(`${obsd.url}/v1/traces`, body).catch(() => null));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await obsd.stop()).to.equal(0);
    const acknowledged = (await Promise.all(posts)).filter((r) => r?.status === 200).length;
    const db = new Database(dbPath, { readonly: true });
    const stored = db.prepare("SELECT count(*) AS n FROM spans").get() as { n: number };
    db.close();
    // Every batch is the same 512 spans: once any post was acknowledged, all 512 are on disk.
    expect(acknowledged).to.be.greaterThan(0);
    expect(stored.n).to.equal(512);
  });

  it("finishes stopping cleanly when a second signal arrives mid-shutdown", async () => {
    const obsd = await startCollectorProcess({ stateDir: dir.path });
    obsd.child.kill("SIGINT");
    obsd.child.kill("SIGTERM");
    expect(await obsd.stop()).to.equal(0);
    expect(obsd.output()).to.match(/while stopping; still finishing writes/);
  });
});
