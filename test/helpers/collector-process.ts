import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { packagePath } from "../../shared/package-root.js";
import { tempDir } from "./temp-dir.js";

export interface CollectorProcess {
  url: string;
  port: number;
  dbPath: string;
  stateDir: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM (or the given signal) and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Reuse a state folder (restarts); a new temporary one otherwise. */
  stateDir?: string;
  /** The store; "" for obsd's default one (no --db). */
  dbPath?: string;
  /**
   * The command line after `node`, instead of `bin/obsd.js --port 0 --db <path> ...args`
   * (e.g. bare `bin/obs.js`, configured through OBS_MONITOR_PORT=0 in `env`).
   */
  argv?: string[];
  /** The collector's working folder (discovery matches on it). */
  cwd?: string;
}

const running = new Set<ChildProcess>();

/** Starts a real `obsd` on a free port with its own state folder and database. */
export async function startCollectorProcess(options: StartOptions = {}): Promise<CollectorProcess> {
  const state = options.stateDir ? { path: options.stateDir, cleanup: () => {} } : tempDir("obs-it-");
  const dbPath = options.dbPath ?? join(state.path, "telemetry.sqlite");
  const child = spawn(
    process.execPath,
    options.argv ?? [
      packagePath("bin", "obsd.js"),
      "--port",
      "0",
      // An empty dbPath: no --db, so obsd takes its default store.
      ...(dbPath === "" ? [] : ["--db", dbPath]),
      ...(options.args ?? []),
    ],
    {
      env: { ...process.env, OBS_STATE_DIR: state.path, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    },
  );
  running.add(child);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  child.on("exit", () => running.delete(child));

  const starting = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`obsd did not start within 10 s:\n${output}`)), 10_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && output.includes("Press Ctrl+C to stop.")) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`obsd exited with ${code} before listening:\n${output}`));
    });
  });
  // A collector that never listened leaves no handle to stop it: it and its temporary state go now.
  const url = await starting.catch(async (error: Error) => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    if (!options.stateDir) state.cleanup();
    throw error;
  });
  return {
    url,
    port: Number(new URL(url).port),
    dbPath,
    stateDir: state.path,
    child,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      if (!options.stateDir) state.cleanup();
      return code;
    },
  };
}

/** Kills any collector a failed test left running. Registered once for every suite. */
/** Starts obsd and returns the error it exited with; a collector that did start is stopped. */
export async function startFailure(options: StartOptions = {}): Promise<Error | null> {
  let started: CollectorProcess | null = null;
  const error = await startCollectorProcess(options).then(
    (collector) => {
      started = collector;
      return null;
    },
    (failure: Error) => failure,
  );
  if (started) await (started as CollectorProcess).stop();
  return error;
}

export function killLeftoverCollectors(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

/** Runs a collector that exits on its own (bad flags, busy port) and returns its code and output. */
export function runCollectorToExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [packagePath("bin", "obsd.js"), ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(cwd ? { cwd } : {}),
    });
    running.add(child);
    let output = "";
    child.stdout.on("data", (c) => {
      output += c;
    });
    child.stderr.on("data", (c) => {
      output += c;
    });
    child.on("exit", (code) => {
      running.delete(child);
      resolve({ code, output });
    });
  });
}

// Under mocha, a crashed test must not leave collectors behind; benchmarks call stop() themselves.
if (typeof after === "function") after(killLeftoverCollectors);
