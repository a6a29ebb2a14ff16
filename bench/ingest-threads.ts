/**
 * bench/ingest-threads: the ingest workload against one or more obsd builds, interleaved
 * round by round, with where each collector's time went: spans/s, then the busiest thread
 * (the writer) as CPU per span and as shares of the wall time running and waiting for a core
 * (`/proc/<pid>/task/<tid>/schedstat`), all of obsd's CPU per span, and peak RSS.
 *
 * For A/B comparisons on a noisy machine: build the other version elsewhere and name both.
 *
 *   node dist/bench/ingest-threads.js                              (this build only)
 *   BENCH_BUILDS="base=/tmp/base/bin/obsd.js,new=bin/obsd.js" BENCH_ROUNDS=5 node dist/bench/ingest-threads.js
 */
import { readdirSync, readFileSync } from "node:fs";
import { Agent } from "node:http";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { packagePath } from "../shared/package-root.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { postAll } from "./http-load.js";
import { peakRss, percentile } from "./measure.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Paths are relative to the current folder; the default is this package's own obsd.
const BUILDS = (process.env.BENCH_BUILDS ?? `this=${packagePath("bin", "obsd.js")}`).split(",").map((entry) => {
  const [name, path] = entry.split("=");
  return { name: name as string, obsd: resolve(path as string) };
});

/** Run and wait time (ms) of each thread of a process so far. */
function threadTimes(pid: number): Map<string, { run: number; wait: number }> {
  const times = new Map<string, { run: number; wait: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
    times.set(tid, { run: (run ?? 0) / 1e6, wait: (wait ?? 0) / 1e6 });
  }
  return times;
}

interface Pass {
  spansPerSecond: number;
  writerUsPerSpan: number;
  writerBusy: number;
  writerWaiting: number;
  obsdUsPerSpan: number;
  peakRssMb: number;
}

async function pass(obsdPath: string, bodies: Buffer[], contentType: string): Promise<Pass> {
  const obsd = await startCollectorProcess({ argv: [obsdPath, "--port", "0"] });
  const pid = obsd.child.pid as number;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const before = threadTimes(pid);
    const started = performance.now();
    await postAll(agent, `${obsd.url}/v1/traces`, bodies, contentType, CONCURRENCY);
    const wallMs = performance.now() - started;
    const spans = bodies.length * SPANS_PER_BATCH;
    let all = 0;
    let busiest = { run: 0, wait: 0 };
    for (const [tid, after] of threadTimes(pid)) {
      const start = before.get(tid) ?? { run: 0, wait: 0 };
      const run = after.run - start.run;
      all += run;
      if (run > busiest.run) busiest = { run, wait: after.wait - start.wait };
    }
    return {
      spansPerSecond: spans / (wallMs / 1000),
      writerUsPerSpan: (busiest.run * 1000) / spans,
      writerBusy: busiest.run / wallMs,
      writerWaiting: busiest.wait / wallMs,
      obsdUsPerSpan: (all * 1000) / spans,
      peakRssMb: peakRss(pid) / 1024 / 1024,
    };
  } finally {
    agent.destroy();
    await obsd.stop();
  }
}

function describe(pass: Pass): string {
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  return `${Math.round(pass.spansPerSecond)} (writer ${pass.writerUsPerSpan.toFixed(1)} us, ${percent(pass.writerBusy)} running, ${percent(pass.writerWaiting)} waiting; obsd ${pass.obsdUsPerSpan.toFixed(1)} us; ${Math.round(pass.peakRssMb)} MB)`;
}

async function main(): Promise<void> {
  const workload = makeWorkload(BATCHES, 1, BigInt(Date.now()) * 1_000_000n);
  const encodings = [
    { name: "protobuf", bodies: workload.protobuf, contentType: "application/x-protobuf" },
    { name: "json", bodies: workload.json, contentType: "application/json" },
  ];
  console.log(
    `bench/ingest-threads: ${BATCHES} batches x ${SPANS_PER_BATCH} spans, ${CONCURRENCY} in flight, ${ROUNDS} rounds, builds: ${BUILDS.map((b) => b.name).join(", ")}`,
  );
  const results = new Map<string, Pass[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const build of BUILDS) {
      for (const encoding of encodings) {
        const key = `${build.name} ${encoding.name}`;
        const result = await pass(build.obsd, encoding.bodies, encoding.contentType);
        results.set(key, [...(results.get(key) ?? []), result]);
        console.log(`round ${round} ${key}: ${describe(result)}`);
      }
    }
  }
  for (const [key, passes] of results) {
    const median = percentile(
      passes.map((p) => p.spansPerSecond),
      50,
    );
    const rss = passes.map((p) => p.peakRssMb);
    console.log(
      `${key}: median ${Math.round(median)} spans/s; peak RSS median ${Math.round(percentile(rss, 50))} MB, highest ${Math.round(Math.max(...rss))} MB`,
    );
  }
}

await main();
