import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { http } from "../test/helpers/http.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";
import { loadOrBuildDataset } from "./query-dataset.js";

const TRACES = Number(process.env.BENCH_TRACES ?? 200_000);
const LOGS = Number(process.env.BENCH_LOGS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function main(): Promise<void> {
  const dir = tempDir("obs-bench-audit-");
  const dbPath = process.env.BENCH_DB ?? join(dir.path, "audit.sqlite");
  const info = loadOrBuildDataset("bench/audit", dbPath, TRACES, LOGS);
  const obsd = await startCollectorProcess({ dbPath, stateDir: dir.path, args: ["--max-db-size", "8GiB"] });
  try {
    const audits: [string, string][] = [
      ["default: 15m against the 15m before", "/api/audit"],
      ["1h against the 1h before", "/api/audit?lookbackMinutes=60"],
      ["12h against the 12h before (the whole store)", "/api/audit?lookbackMinutes=720&baselineMinutes=720"],
      ["24h, durationMin=100", "/api/audit?lookbackMinutes=1440&durationMin=100"],
    ];
    console.log(`bench/audit: ${info.spans} spans, ${info.logs} logs over 24h; ${RUNS} runs each (median, max)`);
    for (const [label, path] of audits) {
      const times: number[] = [];
      let findings = 0;
      for (let run = 0; run < RUNS + 1; run++) {
        const started = performance.now();
        const res = await http(`${obsd.url}${path}`);
        const ms = performance.now() - started;
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.toString()}`);
        findings = res.json().data.findings.length;
        if (run > 0) times.push(ms); // the first run warms the page cache
      }
      const median = percentile(times, 50);
      console.log(
        `${label.padEnd(46)} median ${round(median).toFixed(1).padStart(7)} ms  max ${round(Math.max(...times))
          .toFixed(1)
          .padStart(7)} ms  ${findings} findings  ${median < 1000 ? "meets" : "MISSES"} <1 s`,
      );
    }
  } finally {
    await obsd.stop();
    // The collector's state always goes; a BENCH_DB store lives elsewhere and is kept.
    dir.cleanup();
  }
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exitCode = 1;
});
