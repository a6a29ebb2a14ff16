/**
 * bench/cli: wall time of CLI commands beside bare `node -e 0`, interleaved in one run so the
 * machine's noise hits every command alike. A real detached collector serves them, found by
 * discovery as a shell prompt would find it.
 *
 *   npm run bench:cli        (BENCH_RUNS=30 by default)
 *
 * Targets: `obs monitor status --json` within 1.5x of bare node start-up; query commands
 * (`obs status --json`, `obs traces --json`) within 2.5x. It also prints what the `obs agentcli`
 * launcher adds to starting the (fixture) agent directly.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { saveCollector } from "../client/setup/saved-collector.js";
import { packagePath } from "../shared/package-root.js";
import { postJson } from "../test/helpers/http.js";
import { hexId, traceRequest } from "../test/helpers/otlp-builders.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const OBS = packagePath("bin", "obs.js");

const AGENT_DIR = packagePath("test", "fixtures", "agentcli");

const COMMANDS: { label: string; args: string[]; file?: string; target?: number }[] = [
  { label: "node -e 0", args: ["-e", "0"] },
  { label: "obs monitor status --json", args: [OBS, "monitor", "status", "--json"], target: 1.5 },
  { label: "obs status --json", args: [OBS, "status", "--json"], target: 2.5 },
  { label: "obs traces --json", args: [OBS, "traces", "--json"], target: 2.5 },
  { label: "agentcli --version", file: join(AGENT_DIR, "agentcli"), args: ["--version"] },
  { label: "obs agentcli --version", args: [OBS, "agentcli", "--version"] },
];

function timed(command: { args: string[]; file?: string }, env: NodeJS.ProcessEnv, cwd: string): number {
  const { args } = command;
  const started = performance.now();
  const result = spawnSync(command.file ?? process.execPath, args, { env, cwd, encoding: "utf8" });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function main(): void {
  const state = tempDir("obs-bench-cli-");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OBS_STATE_DIR: state.path,
    PATH: `${AGENT_DIR}:${process.env.PATH}`,
  };
  delete env.OBS_MONITOR_URL;
  const start = spawnSync(process.execPath, [OBS, "monitor", "start", "--detach", "--port", "0", "--json"], {
    env,
    cwd: state.path,
    encoding: "utf8",
  });
  if (start.status !== 0) throw new Error(`cannot start a collector: ${start.stderr}`);
  const baseUrl = JSON.parse(start.stdout).data.collector.base_url as string;
  saveCollector(baseUrl, env);
  const run = async () => {
    const now = BigInt(Date.now()) * 1_000_000n;
    const spans = Array.from({ length: 50 }, (_, i) => ({
      traceId: hexId(i, 16),
      spanId: hexId(i, 8),
      name: `GET /item/${i}`,
      startNs: now - BigInt(i) * 1_000_000n,
    }));
    await postJson(`${baseUrl}/v1/traces`, traceRequest("bench", spans));
    const samples = new Map<string, number[]>(COMMANDS.map((command) => [command.label, []]));
    for (let round = 0; round < RUNS + 2; round++) {
      for (const command of COMMANDS) {
        const ms = timed(command, env, state.path);
        if (round >= 2) samples.get(command.label)?.push(ms); // two warm-up rounds fill the page cache
      }
    }
    const nodeMedian = percentile(samples.get("node -e 0") ?? [], 50);
    console.log(`bench/cli: ${RUNS} runs each, interleaved; wall time from spawn to exit`);
    for (const command of COMMANDS) {
      const values = samples.get(command.label) ?? [];
      const median = percentile(values, 50);
      const ratio = median / nodeMedian;
      const verdict = command.target ? `  ${ratio <= command.target ? "meets" : "MISSES"} ≤${command.target}x` : "";
      console.log(
        `${command.label.padEnd(28)} median ${round(median).toFixed(1).padStart(6)} ms  p90 ${round(
          percentile(values, 90),
        )
          .toFixed(1)
          .padStart(6)} ms  ${round(ratio, 2).toFixed(2)}x node${verdict}`,
      );
    }
    const launcher =
      percentile(samples.get("obs agentcli --version") ?? [], 50) -
      percentile(samples.get("agentcli --version") ?? [], 50);
    console.log(`obs agentcli launcher overhead (median difference): ${round(launcher).toFixed(1)} ms`);
  };
  run()
    .catch((error: Error) => {
      console.error(error.message);
      process.exitCode = 1;
    })
    .finally(() => {
      spawnSync(process.execPath, [OBS, "monitor", "stop"], { env, cwd: state.path });
      state.cleanup();
    });
}

main();
