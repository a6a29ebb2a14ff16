import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { hexId, type SpanSpec, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const MS = 1_000_000n;

/** Runs `obs` with stdout on a pipe that nobody reads for `pauseMs`, then reads it all. */
function runThroughSlowPipe(args: string[], env: NodeJS.ProcessEnv, pauseMs: number) {
  return new Promise<{ code: number | null; stdout: Buffer }>((resolve) => {
    const child = spawn(process.execPath, [packagePath("bin", "obs.js"), ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks: Buffer[] = [];
    let code: number | null = null;
    let pending = 2;
    const done = () => {
      pending -= 1;
      if (pending === 0) resolve({ code, stdout: Buffer.concat(chunks) });
    };
    // Read in paused mode: a 'readable' listener keeps Node from draining the pipe for us when
    // the child exits, so nothing is read before the pause is over.
    let reading = false;
    const drain = () => {
      for (let chunk = child.stdout.read(); chunk !== null; chunk = child.stdout.read()) chunks.push(chunk);
    };
    child.stdout.on("readable", () => {
      if (reading) drain();
    });
    child.stdout.on("end", done);
    setTimeout(() => {
      reading = true;
      drain();
    }, pauseMs);
    child.on("exit", (exitCode) => {
      code = exitCode;
      done();
    });
  });
}

/** Runs `obs` with stdout redirected to a file: the output a pipe must match. */
function runToFile(args: string[], env: NodeJS.ProcessEnv, path: string) {
  return new Promise<{ code: number | null; stdout: Buffer }>((resolve) => {
    const fd = openSync(path, "w");
    const child = spawn(process.execPath, [packagePath("bin", "obs.js"), ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", fd, "inherit"],
    });
    child.on("exit", (code) => {
      closeSync(fd);
      resolve({ code, stdout: readFileSync(path) });
    });
  });
}

/** Runs `obs` with stdout, or stderr, on /dev/full, where every write fails with ENOSPC. */
function runIntoFullDevice(args: string[], env: NodeJS.ProcessEnv, stream: "stdout" | "stderr") {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const fd = openSync("/dev/full", "w");
    const child = spawn(process.execPath, [packagePath("bin", "obs.js"), ...args], {
      env: { ...process.env, ...env },
      stdio: stream === "stdout" ? ["ignore", fd, "pipe"] : ["ignore", "pipe", fd],
    });
    let output = "";
    (stream === "stdout" ? child.stderr : child.stdout)?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("close", (code) => {
      closeSync(fd);
      resolve({ code, output });
    });
  });
}

/** The document's generation time differs between two runs; everything else must not. */
const withoutClock = (output: Buffer) => output.toString("utf8").replace(/"generated_at": "[^"]+"/, "");

describe("obs output through a pipe to a slow reader", function () {
  this.timeout(120_000);
  let obsd: CollectorProcess;
  let env: NodeJS.ProcessEnv;
  let dir: ReturnType<typeof tempDir>;
  const traceId = hexId(7, 16);

  before(async () => {
    dir = tempDir();
    obsd = await startCollectorProcess();
    env = { OBS_STATE_DIR: obsd.stateDir, OBS_MONITOR_URL: obsd.url };
    // All in the past: the window ends at the time of each query, and both runs must see the same spans.
    const now = BigInt(Date.now() - 60_000) * MS;
    const spans: SpanSpec[] = Array.from({ length: 5_000 }, (_, i) => ({
      traceId,
      spanId: hexId(i, 8),
      ...(i > 0 ? { parentSpanId: hexId(0, 8) } : {}),
      name: `step ${i}`,
      startNs: now + BigInt(i) * MS,
      durationNs: 2n * MS,
      attributes: { "payload.text": "p".repeat(200), index: i },
    }));
    await postJson(`${obsd.url}/v1/traces`, traceRequest("shop", spans));
  });
  after(async () => {
    await obsd.stop();
    dir.cleanup();
  });

  it("writes every byte of a large --json document, and exits 0 only after the reader has it all", async () => {
    const args = ["spans", "--trace-id", traceId, "--limit", "500", "--json"];
    const file = await runToFile(args, env, join(dir.path, "spans.json"));
    expect(file.code).to.equal(0);
    expect(file.stdout.length).to.be.greaterThan(256 * 1024);
    const piped = await runThroughSlowPipe(args, env, 1_000);
    expect(piped.code).to.equal(0);
    expect(piped.stdout.length).to.equal(file.stdout.length);
    expect(JSON.parse(piped.stdout.toString("utf8")).data).to.have.length(500);
  });

  it("writes all of a large trace, as a document and as text", async () => {
    for (const args of [
      ["trace", traceId, "--json", "--include", "spans"],
      ["trace", traceId],
    ]) {
      const file = await runToFile(args, env, join(dir.path, "trace.out"));
      expect(file.code).to.equal(0);
      // More than the pipe (64 KiB) and the reader's own buffer can hold before anyone reads.
      expect(file.stdout.length).to.be.greaterThan(256 * 1024);
      const piped = await runThroughSlowPipe(args, env, 1_000);
      expect(piped.code, args.join(" ")).to.equal(0);
      expect(withoutClock(piped.stdout)).to.equal(withoutClock(file.stdout));
    }
  });

  it("says in one line that the output could not be written, and exits 4, not a finding's 1", async () => {
    const stdout = await runIntoFullDevice(["services"], env, "stdout");
    expect(stdout.code).to.equal(4);
    expect(stdout.output).to.match(/^obs: could not write the output: ENOSPC[^\n]*\n$/);
    const document = await runIntoFullDevice(["traces", "--json"], env, "stdout");
    expect(document.code).to.equal(4);
    expect(document.output).to.match(/^obs: could not write the output: ENOSPC[^\n]*\n$/);
    // An argument error whose message cannot be written still ends as an argument error.
    const usage = await runIntoFullDevice(["traces", "--limit", "0"], env, "stderr");
    expect(usage.code).to.equal(2);
    expect(usage.output).to.equal("");
  });
});
