/**
 * Answers comparison: every query route, the error answers and `obs` CLI commands against one
 * deterministic store with the clock stopped, each answer written to a file, so two builds
 * (before and after a refactor) can be compared byte for byte.
 *
 *   npm run bench:answers -- --db PATH --out DIR [--compare BASELINE_DIR] [--cursor-key-from STORE]
 *
 * The store at --db is built once (fixed base time, fixed seed) and reused: its cursor-signing
 * key is random per store, so both builds must read the same file. Each run copies it to a
 * temporary folder first; the original is never opened by obsd.
 *
 * A change to how the store keeps data (a schema the older build cannot read) is compared on
 * two stores, each built by its own build from the same seed: the second run then passes
 * --cursor-key-from with the first run's store, so that cursors are signed with the same key.
 *
 * Left out because they differ between runs by nature: health's pid, uptime, start time, ports,
 * paths, file size and measured bytes per record (masked in the health and `obs status` answers), the HTTP Date header
 * (only status and body are kept) and the port in CLI output (replaced by <obsd-url>).
 * The OpenAPI document and /docs are reported in their own group and may change.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { packagePath } from "../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../test/helpers/collector-process.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { type CliCase, cliCases, type HttpCase, httpCases, type KnownIds } from "./answer-cases.js";
import { compareAnswers, type IndexLine, writeAnswer, writeIndex } from "./answer-compare.js";
import { writeAnswerMetrics } from "./answer-metrics.js";
import { buildQueryDataset, type DatasetInfo } from "./query-dataset.js";

const TRACES = 20_000;
const LOGS = 100_000;
/** The dataset's "now": its newest data is just before this instant. */
const BASE_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
/**
 * obsd's and the CLI's stopped clock. The base is months old on purpose: were any thread of
 * obsd on the real clock, its retention (run every second here) would delete the whole store.
 */
const CLOCK_MS = BASE_MS + 30_000;

function options(): { db: string; out: string; compare: string | undefined; cursorKeyFrom: string | undefined } {
  const { values } = parseArgs({
    options: {
      db: { type: "string" },
      out: { type: "string" },
      compare: { type: "string" },
      "cursor-key-from": { type: "string" },
    },
  });
  if (!values.db || !values.out) {
    throw new Error(
      "usage: node dist/bench/query-answers.js --db PATH --out DIR [--compare DIR] [--cursor-key-from STORE]",
    );
  }
  return { db: values.db, out: values.out, compare: values.compare, cursorKeyFrom: values["cursor-key-from"] };
}

/** Gives the store at `path` the cursor key of the store at `from` (both files closed after). */
function copyCursorKey(from: string, path: string): void {
  const source = new Database(from, { readonly: true, fileMustExist: true });
  let key: unknown;
  try {
    key = source.prepare("SELECT value FROM meta WHERE key = 'cursor_key'").pluck().get();
  } finally {
    source.close();
  }
  if (typeof key !== "string") throw new Error(`${from} has no cursor key`);
  const target = new Database(path, { fileMustExist: true });
  try {
    target.prepare("UPDATE meta SET value = ? WHERE key = 'cursor_key'").run(key);
  } finally {
    target.close();
  }
}

/** The store at `db` with its info file beside it, built now when either is missing. */
function dataset(db: string): DatasetInfo & { points: number } {
  const infoPath = `${db}.json`;
  if (existsSync(db) && existsSync(infoPath)) {
    const info = JSON.parse(readFileSync(infoPath, "utf8")) as DatasetInfo & { points?: number };
    // A store built before it held metrics is built again.
    if (info.points !== undefined) {
      console.log(`reusing ${db} (${info.spans} spans, ${info.logs} logs, ${info.points} metric points)`);
      return { ...info, points: info.points };
    }
  }
  rmSync(db, { force: true });
  console.log(
    `building ${db}: ${TRACES} traces (x5 spans), ${LOGS} logs and metrics over the 24h before ${new Date(BASE_MS).toISOString()}`,
  );
  const started = performance.now();
  const spansAndLogs = buildQueryDataset(db, TRACES, LOGS, BigInt(BASE_MS) * 1_000_000n, (done) =>
    console.log(`  ${Math.round(done * 100)}% (${Math.round(performance.now() - started)} ms)`),
  );
  const info = { ...spansAndLogs, points: writeAnswerMetrics(db, BigInt(BASE_MS) * 1_000_000n) };
  writeFileSync(infoPath, JSON.stringify(info));
  console.log(
    `  built ${info.spans} spans, ${info.logs} logs, ${info.points} metric points in ${Math.round(performance.now() - started)} ms`,
  );
  return info;
}

/** The environment of obsd and the CLI: the clock stopped in every thread. */
function clockEnv(): NodeJS.ProcessEnv {
  const preload = pathToFileURL(packagePath("dist", "bench", "fixed-clock.js")).href;
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${preload}`].filter(Boolean).join(" "),
    OBS_FIXED_NOW_MS: String(CLOCK_MS),
  };
}

interface Raw {
  status: number;
  body: Buffer;
}

function send(agent: Agent, base: string, method: string, path: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function getJson<T>(agent: Agent, base: string, path: string): Promise<T> {
  const answer = await send(agent, base, "GET", path);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body.toString("utf8")) as T;
}

type Page<T> = { data: T[] };

async function knownIds(agent: Agent, base: string, info: DatasetInfo): Promise<KnownIds> {
  const big = await getJson<Page<{ spanId: string }>>(agent, base, `/api/traces/${info.bigTraceId}/spans`);
  const recent = await getJson<Page<{ traceId: string }>>(agent, base, "/api/traces");
  const traceId = recent.data[0]?.traceId;
  if (!traceId) throw new Error("no trace in the last 15 minutes: is obsd's clock stopped?");
  const small = await getJson<Page<{ spanId: string }>>(agent, base, `/api/traces/${traceId}/spans`);
  const logs = await getJson<Page<{ traceId: string | null }>>(agent, base, "/api/logs?limit=100&lookback=24h");
  const logTraceId = logs.data.find((log) => log.traceId !== null)?.traceId;
  if (!logTraceId) throw new Error("no log with a trace id");
  return {
    bigTraceId: info.bigTraceId,
    rootSpanId: (big.data[0] as { spanId: string }).spanId,
    childSpanId: (big.data[1] as { spanId: string }).spanId,
    traceId,
    leafSpanId: (small.data.at(-1) as { spanId: string }).spanId,
    logTraceId,
    nowIso: new Date(CLOCK_MS).toISOString(),
    untilIso: new Date(CLOCK_MS - 45 * 60_000).toISOString(),
  };
}

const MASKED = "<masked>";

/** Sets the value at `path` (when present) to MASKED. */
function maskAt(object: Record<string, unknown>, path: string[]): void {
  let node: unknown = object;
  for (const key of path.slice(0, -1)) node = (node as Record<string, unknown> | undefined)?.[key];
  const last = path.at(-1) as string;
  if (node && typeof node === "object" && last in node) (node as Record<string, unknown>)[last] = MASKED;
}

/** Health fields that differ between runs of the same store by nature. */
const HEALTH_VOLATILE = [
  ["instanceId"],
  ["pid"],
  ["cwd"],
  ["startedAt"],
  ["uptimeSeconds"],
  ["baseUrl"],
  ["database", "path"],
  ["database", "sizeBytes"],
  ["configuration", "monitorPort", "value"],
  ["configuration", "db", "value"],
  // Measured from the file's pages, when health first asks: the layout, not the answers.
  ["database", "history", "spans", "bytesPerRecord"],
  ["database", "history", "logs", "bytesPerRecord"],
  ["database", "history", "points", "bytesPerRecord"],
  ["database", "history", "measuredAt"],
];

/** Each endpoint's URL and port (the port is a free one, new each run). */
function maskEndpoints(health: Record<string, unknown>): void {
  const endpoints = health.endpoints;
  if (!Array.isArray(endpoints)) return;
  for (const endpoint of endpoints as Record<string, unknown>[]) {
    maskAt(endpoint, ["url"]);
    maskAt(endpoint, ["port"]);
  }
}
const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

function maskHealth(body: string): string {
  const health = JSON.parse(body) as Record<string, unknown>;
  for (const path of HEALTH_VOLATILE) maskAt(health, path);
  maskEndpoints(health);
  return JSON.stringify(health);
}

function maskStatus(stdout: string, json: boolean): string {
  if (!json) {
    return stdout
      .replace(/pid \d+, up \d+ s, started in \S+/, `pid ${MASKED}, up ${MASKED} s, started in ${MASKED}`)
      .replace(/database {2}\S+ {2}[\d.]+ MiB/, `database  ${MASKED}  ${MASKED} MiB`)
      .replace(/(\d+ B per (span|log record|point)|size not measured)$/gm, MASKED);
  }
  const document = JSON.parse(stdout) as { data: Record<string, unknown> };
  for (const path of HEALTH_VOLATILE) maskAt(document.data, path.map(snake));
  maskEndpoints(document.data);
  maskAt(document.data, ["target", "base_url"]);
  return `${JSON.stringify(document, null, 2)}\n`;
}

function withCursor(path: string, cursor: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
}

async function runHttp(agent: Agent, base: string, cases: HttpCase[], out: string): Promise<IndexLine[]> {
  const lines: IndexLine[] = [];
  for (const c of cases) {
    const prefix = c.group === "openapi" ? "openapi" : "http";
    let path = c.path;
    for (let page = 1; page <= 2; page++) {
      const answer = await send(agent, base, c.method, path);
      const body = c.mask === "health" ? Buffer.from(maskHealth(answer.body.toString("utf8"))) : answer.body;
      const name = `${prefix}/${c.name}${page === 2 ? ".page2" : ""}`;
      const content = Buffer.concat([Buffer.from(`${c.method} ${path}\nHTTP ${answer.status}\n`), body]);
      lines.push(writeAnswer(out, name, answer.status, content));
      if (!c.follow || answer.status !== 200) break;
      const meta = (JSON.parse(answer.body.toString("utf8")) as { meta?: { nextCursor?: string | null } }).meta;
      if (!meta?.nextCursor) break;
      path = withCursor(c.follow === true ? c.path : c.follow, meta.nextCursor);
    }
  }
  return lines;
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runObs(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [packagePath("bin", "obs.js"), ...args], {
      env,
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

async function runCli(collector: CollectorProcess, cases: CliCase[], out: string, cwd: string): Promise<IndexLine[]> {
  const { OBS_MONITOR_URL: _url, FORCE_COLOR: _color, COLUMNS: _columns, ...inherited } = process.env;
  const env = { ...inherited, ...clockEnv(), OBS_STATE_DIR: cwd, NO_COLOR: "1" };
  const scrub = (text: string) => text.replaceAll(collector.url, "<obsd-url>").replaceAll(cwd, "<tmp>");
  const runCase = async (c: CliCase): Promise<IndexLine[]> => {
    const lines: IndexLine[] = [];
    for (const json of [false, true]) {
      let cursorArgs: string[] = [];
      for (let page = 1; page <= 2; page++) {
        const args = [...c.args, ...cursorArgs, "--base-url", collector.url, ...(json ? ["--json"] : [])];
        const run = await runObs(args, env, cwd);
        const stdout = c.mask === "status" && run.code === 0 ? maskStatus(run.stdout, json) : run.stdout;
        const name = `cli/${c.name}.${json ? "json" : "table"}${page === 2 ? ".page2" : ""}`;
        const shown = ["obs", ...args.map((arg) => (arg === collector.url ? "<obsd-url>" : arg))].join(" ");
        const content = `$ ${shown}\nexit ${run.code}\n--- stdout\n${scrub(stdout)}--- stderr\n${scrub(run.stderr)}`;
        lines.push(writeAnswer(out, name, run.code ?? -1, Buffer.from(content)));
        if (!c.follow || !json || run.code !== 0) break;
        const next = (JSON.parse(run.stdout) as { page?: { next_cursor?: string | null } }).page?.next_cursor;
        if (!next) break;
        cursorArgs = ["--cursor", next];
      }
    }
    return lines;
  };
  // Two commands at a time: the answers do not depend on the order (obsd only reads here).
  const results: IndexLine[][] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runCase(cases[index] as CliCase);
    }
  };
  await Promise.all([worker(), worker()]);
  return results.flat();
}

/** The stopped clock, checked where it matters: retention in obsd's writer thread kept every row. */
async function checkClock(agent: Agent, base: string, info: DatasetInfo): Promise<void> {
  const health = await getJson<{ counts: { spans: number; logs: number } }>(agent, base, "/api/health");
  if (health.counts.spans !== info.spans || health.counts.logs !== info.logs) {
    throw new Error(
      `store holds ${health.counts.spans} spans, ${health.counts.logs} logs, not ${info.spans}, ${info.logs}: retention ran on the real clock`,
    );
  }
}

function elapsed(since: number): number {
  return Math.round((performance.now() - since) / 100) / 10;
}

async function main(): Promise<void> {
  const started = performance.now();
  const opts = options();
  const info = dataset(opts.db);
  rmSync(opts.out, { recursive: true, force: true });
  const dir = tempDir("obs-bench-answers-");
  const copy = join(dir.path, "store.sqlite");
  copyFileSync(opts.db, copy);
  if (opts.cursorKeyFrom !== undefined) copyCursorKey(opts.cursorKeyFrom, copy);
  const collector = await startCollectorProcess({
    dbPath: copy,
    stateDir: dir.path,
    args: ["--retention-interval", "1s"],
    env: clockEnv(),
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let lines: IndexLine[] = [];
  try {
    // Long enough for retention to run at least once before and after the answers.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await checkClock(agent, collector.url, info);
    const ids = await knownIds(agent, collector.url, info);
    const http = httpCases(ids);
    console.log(`obsd at ${collector.url}, clock stopped at ${ids.nowIso}; ${http.length} HTTP requests ...`);
    let phase = performance.now();
    lines = await runHttp(agent, collector.url, http, opts.out);
    const cli = cliCases(ids);
    console.log(`  ${elapsed(phase)} s; ${cli.length} obs commands, each as a table and --json ...`);
    phase = performance.now();
    lines.push(...(await runCli(collector, cli, opts.out, dir.path)));
    console.log(`  ${elapsed(phase)} s`);
    await checkClock(agent, collector.url, info);
  } finally {
    agent.destroy();
    await collector.stop();
    dir.cleanup();
  }
  writeIndex(opts.out, lines);
  console.log(`wrote ${lines.length} answers to ${opts.out} in ${elapsed(started)} s`);
  if (opts.compare && compareAnswers(opts.compare, opts.out) > 0) process.exitCode = 1;
}

await main();
